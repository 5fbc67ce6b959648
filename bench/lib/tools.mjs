// Tool definitions shared by every benchmark server, so each implementation serves the same
// semantics and the same payloads. JSON Schema here; servers built on the official SDKs build the
// equivalent zod schemas (their idiomatic path) from bench/lib/zod-tools.mjs.

import v8 from 'node:v8';

export const ECHO_TEXT = 'The quick brown fox jumps over the lazy dog; benchmark payload 0123456789abcdef.';

export const echoSchema = {
  type: 'object',
  properties: { text: { type: 'string' } },
  required: ['text'],
};

// A non-trivial input schema: nested objects, arrays of objects, a pattern, enums and bounds.
export const orderSchema = {
  type: 'object',
  properties: {
    user: {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 100 },
        email: { type: 'string', pattern: '^[^@\\s]+@[^@\\s]+$' },
        age: { type: 'integer', minimum: 0, maximum: 150 },
      },
      required: ['name', 'email'],
      additionalProperties: false,
    },
    tags: { type: 'array', items: { type: 'string', maxLength: 32 }, maxItems: 16 },
    options: {
      type: 'object',
      properties: {
        mode: { type: 'string', enum: ['fast', 'safe', 'thorough'] },
        retries: { type: 'integer', minimum: 0, maximum: 10 },
        verbose: { type: 'boolean' },
      },
      required: ['mode'],
    },
    items: {
      type: 'array',
      maxItems: 100,
      items: {
        type: 'object',
        properties: {
          id: { type: 'integer' },
          qty: { type: 'number', exclusiveMinimum: 0 },
          note: { type: 'string' },
        },
        required: ['id', 'qty'],
      },
    },
  },
  required: ['user', 'items'],
};

export const ORDER_ARGS = {
  user: { name: 'Ada Lovelace', email: 'ada@example.org', age: 36 },
  tags: ['priority', 'gift', 'fragile', 'eu'],
  options: { mode: 'safe', retries: 3, verbose: false },
  items: Array.from({ length: 10 }, (_, i) => ({ id: i + 1, qty: i + 0.5, note: `item ${i + 1}` })),
};

export const fillerSchema = {
  type: 'object',
  properties: {
    a: { type: 'string', description: 'The primary input string for this tool.' },
    b: { type: 'number', description: 'An optional numeric knob.' },
  },
  required: ['a'],
};

export const fillerName = (i) => `tool_${String(i).padStart(4, '0')}`;
export const fillerDescription = (i) => `Filler tool number ${i}: does one small thing with its input.`;

export const textResult = (text) => ({ content: [{ type: 'text', text }] });

const echoArgs = { text: ECHO_TEXT };

/** `count` echo calls on `client`, `inFlight` at a time, each answer checked. */
export async function echoCalls(client, inFlight, count) {
  let left = count;
  const worker = async () => {
    while (left > 0) {
      left--;
      const result = await client.call('echo', echoArgs);
      if (result.content[0].text !== ECHO_TEXT) throw new Error('unexpected result');
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
}

// hold/release/count: requests held in flight on the server to measure memory per in-flight request.
const held = [];
export function hold() {
  return new Promise((resolve) => held.push(resolve));
}
export function release() {
  const n = held.length;
  for (const resolve of held.splice(0)) resolve(textResult('released'));
  return textResult(String(n));
}
// With gc: true, collects garbage first and adds the V8 heap in use as a second text block, and the young
// generation's resident bytes (empty after that collection) as a third. With heap: true, adds the heap in use
// without collecting (bench/held-allocated.mjs: what the server allocated, in a process whose young generation
// is large enough to need no collection).
export function count(args) {
  if (args?.heap === true) {
    const heap = String(process.memoryUsage().heapUsed);
    return {
      content: [
        { type: 'text', text: String(held.length) },
        { type: 'text', text: heap },
      ],
    };
  }
  if (args?.gc !== true) return textResult(String(held.length));
  globalThis.gc?.();
  const heap = String(process.memoryUsage().heapUsed);
  return {
    content: [
      { type: 'text', text: String(held.length) },
      { type: 'text', text: heap },
      { type: 'text', text: String(youngGenerationBytes()) },
    ],
  };
}

/** Resident bytes of V8's young generation (new space and new large-object space). */
export function youngGenerationBytes() {
  let bytes = 0;
  for (const space of v8.getHeapSpaceStatistics()) {
    if (space.space_name === 'new_space' || space.space_name === 'new_large_object_space')
      bytes += space.physical_space_size;
  }
  return bytes;
}

// Server command-line options, identical for every implementation.
export function parseServerArgs(argv = process.argv.slice(2)) {
  // Exit cleanly on SIGTERM so --cpu-prof (bench/profile.mjs) can write its profile.
  process.once('SIGTERM', () => process.exit(0));
  const opts = { transport: 'stdio', mode: 'modern', tools: 0, minimal: false };
  for (const arg of argv) {
    const [k, v] = arg.replace(/^--/, '').split('=');
    if (k === 'transport') opts.transport = v;
    else if (k === 'mode') opts.mode = v;
    else if (k === 'tools') opts.tools = Number(v);
    else if (k === 'minimal') opts.minimal = true;
    else if (k === 'otel') opts.otel = v;
    else if (k === 'auth') opts.auth = JSON.parse(Buffer.from(v, 'base64url').toString('utf8'));
  }
  return opts;
}

export function announcePort(server) {
  const { port } = server.address();
  process.stdout.write(`LISTENING ${port}\n`);
  // An HTTP server child exits when its parent (the cell) goes away and its stdin pipe closes.
  process.stdin.on('end', () => process.exit(0));
  process.stdin.resume();
}
