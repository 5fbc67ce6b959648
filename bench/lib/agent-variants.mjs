// The agent cell's loop in each variant the A/B scripts compare (bench/agent-ab.mjs, bench/agent-counts.mjs):
// the hand loop on the raw client (`raw`), the same hand loop on agentforge's McpClient (`mcp`), or
// agentforge's Agent + McpHost (`agent`), or the hand loop on an official SDK's client (`sdk1`, `sdk2`), each
// over its own three raw stdio servers and the zero-latency model.
import { agentforgeLoop, handLoop, zeroLatencyModel } from './agent-loop.mjs';
import { serverCommand } from './proc.mjs';

export const TURNS_PER_RUN = 10;

/** `agentLoop`: the Agent loop to use for `agent` (another checkout's, for an A/B). */
export async function openLoop(variant, agentLoop = agentforgeLoop) {
  const commands = [1, 2, 3].map(() => serverCommand('raw', ['--transport=stdio']));
  const model = zeroLatencyModel(TURNS_PER_RUN);
  if (variant === 'agent') return agentLoop(commands, model, TURNS_PER_RUN + 1);
  const client = variant === 'mcp' ? 'agentforge' : variant.startsWith('sdk') ? variant : 'raw';
  const impl = await import(`../clients/${client}.mjs`);
  const servers = await Promise.all(
    commands.map(async (c, i) => ({ name: `s${i + 1}`, client: await impl.connectStdio(c) })),
  );
  return {
    run: await handLoop(servers, model, TURNS_PER_RUN + 1),
    close: () => Promise.all(servers.map((s) => s.client.close())),
  };
}
