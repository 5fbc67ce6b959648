// What the bench measures: each row reads one metric from one cell's results (or derives it from other
// rows' medians). kind 'throughput' = higher is better, ratio to raw is a fraction of the lower bound;
// kind 'cost' = lower is better, ratio to raw is a multiple. Targets are agentforge's, as ratios to raw in the
// same run (or absolute, where marked).
import { FEATURE_ROWS } from './rows-features.mjs';
import { GATEWAY_ROWS } from './rows-gateway.mjs';
import { MEMORY_ROWS } from './rows-memory.mjs';
import { TRANSPORT_ROWS } from './rows-transports.mjs';
import { SCALE_OUT_ROWS } from './scale-out-rows.mjs';

const pick = (key) => (r) => r[key];

export const ROWS = [
  // 1-3. stdio, Streamable HTTP, tool registry size and validation
  ...TRANSPORT_ROWS,
  // Authorization and OpenTelemetry (agentforge only)
  ...FEATURE_ROWS,
  // The gateway
  ...GATEWAY_ROWS,
  // 4-5. Startup and memory
  ...MEMORY_ROWS,
  // 6. Agent loop
  {
    id: 'agent',
    label: 'agent loop: overhead per turn (3 stdio servers, zero-latency model)',
    cell: 'agent',
    spec: { scenario: 'agent' },
    metric: pick('msPerTurn'),
    unit: 'ms',
    kind: 'cost',
  },
  {
    id: 'agent-cpu',
    label: '  agent loop: host CPU per turn (the loop and its MCP clients; servers not counted)',
    cell: 'agent',
    metric: pick('hostCpuUsPerTurn'),
    unit: 'us',
    kind: 'cost',
  },
  {
    id: 'agent-helper-cpu',
    label: "    of which the host's other threads (V8 compiler and GC helpers)",
    cell: 'agent',
    metric: pick('hostHelperCpuUsPerTurn'),
    unit: 'us',
    kind: 'cost',
  },
  {
    id: 'agent-pair-raw',
    label:
      "agent loop beside raw's hand loop in one process, alternating blocks: raw's host CPU per turn in each one's cell",
    cell: 'agent-pair',
    spec: { scenario: 'agent-pair' },
    metric: pick('rawCpuUsPerTurn'),
    unit: 'us',
    kind: 'cost',
    compare: false,
  },
  {
    id: 'agent-pair-ratio',
    label: "  the loop's host CPU per turn / raw's in the same blocks (x; raw's own cell pairs raw with raw)",
    cell: 'agent-pair',
    metric: pick('ratio'),
    unit: 'x',
    kind: 'cost',
    target: { op: '<=', value: 1.15, absolute: true },
  },
  {
    id: 'agent-pair-wall',
    label: "  the loop's wall time per turn / raw's in the same blocks (x)",
    cell: 'agent-pair',
    metric: pick('wallRatio'),
    unit: 'x',
    kind: 'cost',
  },
  // 7. Scale-out (agentforge/redis)
  ...SCALE_OUT_ROWS,
];
