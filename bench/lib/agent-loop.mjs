// Scenario 6: the agent tool loop with a zero-latency fake model and 3 stdio servers. Every loop talks to
// the same three servers (the raw stdio server, so server cost is the same small constant for all) and
// the same model; what differs is the client and the loop: agentforge's Agent + McpHost, or the same loop
// written by hand on an official SDK client (or on the raw client, the lower bound).
import { ECHO_TEXT } from './tools.mjs';

const textOf = (content) =>
  typeof content === 'string' ? content : content.map((p) => (p.type === 'text' ? p.text : '')).join('');

// A ChatModel (agentforge's interface) that answers instantly: each turn it calls every tool named *echo
// (one per server, in parallel) until `turnsPerRun` turns are done, then gives a final answer. It checks the
// previous turn's tool results, so a loop that drops or garbles results fails the run.
export function zeroLatencyModel(turnsPerRun) {
  let seq = 0;
  const respond = (request) => {
    const { messages } = request;
    let turns = 0;
    let results = 0;
    for (let i = messages.length - 1; i >= 0 && messages[i].role !== 'user'; i--) {
      const m = messages[i];
      if (m.role === 'assistant') turns++;
      else if (m.role === 'tool' && turns === 0) {
        results++;
        if (textOf(m.content) !== ECHO_TEXT || m.isError)
          throw new Error(`bad tool result: ${textOf(m.content)}`);
      }
    }
    const echoes = request.tools.filter((t) => t.name.endsWith('echo'));
    if (echoes.length !== 3) throw new Error(`expected 3 echo tools, saw ${echoes.length}`);
    if (turns > 0 && results !== 3) throw new Error(`expected 3 tool results, saw ${results}`);
    if (turns >= turnsPerRun) {
      return { message: { role: 'assistant', content: 'done', toolCalls: [] }, stopReason: 'stop' };
    }
    const toolCalls = echoes.map((t) => ({
      id: `call_${++seq}`,
      name: t.name,
      arguments: { text: ECHO_TEXT },
    }));
    return { message: { role: 'assistant', content: '', toolCalls }, stopReason: 'tool_calls' };
  };
  return {
    id: 'bench:zero-latency',
    generate: async (request) => respond(request),
    async *stream(request) {
      yield { type: 'done', response: respond(request) };
    },
  };
}

// The same loop written on any client adapter (bench/clients/*): a registry named `{server}__{tool}` built
// once, then model turn -> tool calls in parallel -> results appended, until the model answers.
export async function handLoop(servers, model, maxSteps) {
  const tools = [];
  const route = new Map();
  for (const { name, client } of servers) {
    for (const tool of await client.list()) {
      const llmName = `${name}__${tool.name}`;
      tools.push({ name: llmName, description: tool.description, inputSchema: tool.inputSchema });
      route.set(llmName, { client, tool: tool.name });
    }
  }
  return async function run(input) {
    const messages = [{ role: 'user', content: input }];
    for (let step = 1; step <= maxSteps; step++) {
      const response = await model.generate({ messages, tools });
      messages.push(response.message);
      if (response.message.toolCalls.length === 0) return { steps: step, answer: response.message.content };
      const results = await Promise.all(
        response.message.toolCalls.map(async (call) => {
          const target = route.get(call.name);
          const result = await target.client.call(target.tool, call.arguments);
          return {
            role: 'tool',
            toolCallId: call.id,
            name: call.name,
            content: textOf(result.content),
            isError: result.isError === true,
          };
        }),
      );
      messages.push(...results);
    }
    return { steps: maxSteps, answer: '' };
  };
}

// agentforge: McpHost over the three servers (approval pre-granted) and Agent with its defaults.
export async function agentforgeLoop(commands, model, maxSteps) {
  const { Agent, McpHost, parseConfig } = await import('../../dist/agent/index.js');
  const mcpServers = Object.fromEntries(
    commands.map((c, i) => [`s${i + 1}`, { command: c.command, args: c.args, approval: 'auto' }]),
  );
  const host = await McpHost.start(parseConfig({ mcpServers }), {});
  const agent = new Agent({ model, host, maxSteps });
  const run = async (input) => {
    const result = await agent.run(input);
    if (result.error) throw new Error(`agent run failed: ${result.error.message}`);
    return { steps: result.steps, answer: result.answer };
  };
  return { run, close: () => host.close() };
}
