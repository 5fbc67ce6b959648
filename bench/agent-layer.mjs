// The agent layer's own CPU per turn, apart from any client or transport: `node bench/agent-layer.mjs [rounds]
// [runs per block] [dir ...]` runs the agent cell's loop (3 servers, the zero-latency model, 10 turns per run,
// 3 parallel calls per turn) with every server an in-process stand-in that answers each tools/call with an
// already settled promise, once as agentforge's Agent + McpHost (the stand-ins given as a user's own connector,
// approval pre-granted) for each dist directory given (default: this checkout), once as the hand loop over the
// same stand-ins. Blocks of runs alternate in one process and each block's CPU is read, so the medians and the
// per-round ratios hold on a loaded machine, where the agent cell's own figures swing by 30% between runs: with
// no I/O, a turn's CPU is the loop's own work. The hand loop is the floor: the model's own work and little else.
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { handLoop, zeroLatencyModel } from './lib/agent-loop.mjs';

const [rounds = 20, block = 300] = process.argv.slice(2, 4).map(Number);
const dirs = process.argv.slice(4);
if (dirs.length === 0) dirs.push(fileURLToPath(new URL('..', import.meta.url)));
const TURNS_PER_RUN = 10;
const TOOLS = [{ name: 'echo', description: 'Echoes', inputSchema: { type: 'object' } }];
const answer = (text) => Promise.resolve({ content: [{ type: 'text', text }] });

// A HostClient that answers at once: what the host asks of a connected client, nothing more.
const standIn = () => ({
  era: 'handshake',
  protocolVersion: '2025-11-25',
  serverCapabilities: { tools: {} },
  listTools: async () => TOOLS,
  callTool: (params) => answer(params.arguments.text),
  listResources: async () => [],
  listPrompts: async () => [],
  readResource: async () => ({ contents: [] }),
  getPrompt: async () => ({ messages: [] }),
  close: async () => {},
});

const loops = new Map();
for (const dir of dirs) {
  const { Agent, McpHost, parseConfig } = await import(
    pathToFileURL(resolve(dir, 'dist/agent/index.js')).href
  );
  const mcpServers = Object.fromEntries(
    [1, 2, 3].map((i) => [`s${i}`, { command: 'stand-in', approval: 'auto' }]),
  );
  const connector = async () => standIn();
  const host = await McpHost.start(parseConfig({ mcpServers }), { connector });
  const agent = new Agent({ model: zeroLatencyModel(TURNS_PER_RUN), host, maxSteps: TURNS_PER_RUN + 1 });
  loops.set(dir, (input) => agent.run(input));
}
const servers = [1, 2, 3].map((i) => ({
  name: `s${i}`,
  client: { list: async () => TOOLS, call: (_name, args) => answer(args.text) },
}));
loops.set('hand loop', await handLoop(servers, zeroLatencyModel(TURNS_PER_RUN), TURNS_PER_RUN + 1));

async function runs(run, count) {
  for (let i = 0; i < count; i++) {
    const result = await run('go');
    if (result.answer !== 'done' || result.error) throw new Error(`run ended: ${JSON.stringify(result)}`);
  }
}

const names = [...loops.keys()];
for (const name of names) await runs(loops.get(name), 2000);
const cpu = new Map(names.map((name) => [name, []]));
for (let round = 0; round < rounds; round++) {
  for (const name of round % 2 ? [...names].reverse() : names) {
    const start = process.cpuUsage();
    await runs(loops.get(name), block);
    const used = process.cpuUsage(start);
    cpu.get(name).push((used.user + used.system) / (block * TURNS_PER_RUN));
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const first = cpu.get(names[0]);
for (const name of names) {
  const own = cpu.get(name);
  const ratio = median(own.map((value, i) => value / first[i]));
  console.log(
    `${name}: ${median(own).toFixed(2)} us per turn (x${ratio.toFixed(3)} of ${names[0]}, per round)`,
  );
}
process.exit(0);
