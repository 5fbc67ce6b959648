// Rows of the startup and memory cells (bench/lib/rows.mjs says how a row reads its cell).
// Requests held in flight for the memory-per-request rows, in two steps on one connection, sent in batches
// (bench/cell.mjs, heldMemory). At 1,000 the RSS delta is mostly one step of V8's young generation growing. At
// 10,000 it still can be, depending on what survived before: raw-wire, whose requests keep what raw's keep (V8
// heap per 1,000 1.00x), read 1.8-3.2x raw's client RSS there. At 100,000 every implementation's young
// generation has grown to its maximum, a step common to all, and raw-wire's RSS reads what its heap does: the
// targets read that step, the 10,000 one is shown beside it.
const HELD_STEPS = [10_000, 100_000];
const HELD = HELD_STEPS.at(-1);
const per1000 = (kb, held) => kb / 1024 / (held / 1000);
const thousands = (n) => n.toLocaleString('en-US');
// The first step's fields in a held cell's result (bench/cell.mjs): `earlyServerKB`, `earlyClientYoungKB`, ...
const capitalised = (side) => `${side[0].toUpperCase()}${side.slice(1)}`;

export const MEMORY_ROWS = [
  // 4. Startup
  {
    id: 'startup',
    label: 'startup: spawn stdio server to first tools/list',
    cell: 'startup',
    spec: { scenario: 'startup' },
    pooled: (r) => r.times,
    unit: 'ms',
    kind: 'cost',
    target: { op: '<=', value: 1.2 },
  },
  // 5. Memory
  {
    id: 'rss-server',
    label: 'peak RSS, server (64-in-flight run)',
    cell: 'stdio-par',
    metric: (r) => r.serverPeakKB / 1024,
    unit: 'MB',
    kind: 'cost',
    target: { op: '<=', value: 1.2 },
  },
  {
    id: 'rss-client',
    label: 'peak RSS, client (64-in-flight run)',
    cell: 'stdio-par',
    metric: (r) => r.clientPeakKB / 1024,
    unit: 'MB',
    kind: 'cost',
    target: { op: '<=', value: 1.2 },
  },
  {
    id: 'held-server',
    label: `server RSS per 1,000 in-flight requests (${thousands(HELD)} held)`,
    cell: 'stdio-held',
    spec: { scenario: 'stdio-held', held: HELD_STEPS },
    metric: (r) => per1000(r.serverKB, r.held),
    unit: 'MB',
    kind: 'cost',
    target: { op: '<=', value: 1.5 },
  },
  {
    id: 'held-client',
    label: `client RSS per 1,000 in-flight requests (${thousands(HELD)} held)`,
    cell: 'stdio-held',
    metric: (r) => per1000(r.clientKB, r.held),
    unit: 'MB',
    kind: 'cost',
    target: { op: '<=', value: 1.5 },
  },
  {
    id: 'held-server-heap',
    label: '  server V8 heap per 1,000 in-flight requests',
    cell: 'stdio-held',
    metric: (r) => per1000(r.serverHeapKB, r.held),
    unit: 'MB',
    kind: 'cost',
  },
  {
    id: 'held-client-heap',
    label: '  client V8 heap per 1,000 in-flight requests',
    cell: 'stdio-held',
    metric: (r) => per1000(r.clientHeapKB, r.held),
    unit: 'MB',
    kind: 'cost',
  },
  // The young generation is empty after the forced collection both sides take before reading RSS: what it adds
  // is pages V8 grew it by and touched during the burst. When it grows depends on the bytes surviving scavenges
  // since its last growth, startup included (NOTES-perf.md, the ninth round), not on the requests held now.
  ...['server', 'client'].flatMap((side) => [
    {
      id: `held-${side}-young`,
      label: `  ${side} young generation grown while they were sent, per 1,000 (empty after the collection)`,
      cell: 'stdio-held',
      metric: (r) => per1000(r[`${side}YoungKB`], r.held),
      unit: 'MB',
      kind: 'cost',
      compare: false,
    },
    {
      id: `held-${side}-outside-young`,
      label: `  ${side} RSS per 1,000 in-flight requests outside the young generation`,
      cell: 'stdio-held',
      metric: (r) => per1000(r[`${side}KB`] - r[`${side}YoungKB`], r.held),
      unit: 'MB',
      kind: 'cost',
    },
  ]),
  // The first step's readings (until 2026-12-04 the targets read 10,000 sent in one burst): whether the young
  // generation grew during the step, and how many of its pages the step touched, decide them more than the
  // requests held do.
  ...['server', 'client'].flatMap((side) => [
    {
      id: `held-${side}-early`,
      label: `  ${side} RSS per 1,000 in-flight requests at the first step (${thousands(HELD_STEPS[0])} held)`,
      cell: 'stdio-held',
      metric: (r) => per1000(r[`early${capitalised(side)}KB`], r.earlyHeld),
      unit: 'MB',
      kind: 'cost',
    },
    {
      id: `held-${side}-early-young`,
      label: `    of it: ${side} young generation grown during that step`,
      cell: 'stdio-held',
      metric: (r) => per1000(r[`early${capitalised(side)}YoungKB`], r.earlyHeld),
      unit: 'MB',
      kind: 'cost',
      compare: false,
    },
  ]),
];
