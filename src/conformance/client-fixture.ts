/**
 * The conformance suite's client under test: `node build/conformance/client-fixture.js <server-url>`.
 * The suite sets MCP_CONFORMANCE_SCENARIO (what the server expects us to do), MCP_CONFORMANCE_CONTEXT (JSON,
 * scenario data such as tool calls) and MCP_CONFORMANCE_PROTOCOL_VERSION (the wire revision of the run).
 * Dated revisions run the handshake lifecycle (pinned); 2026-07-28 runs with era detection. `auth/*`
 * scenarios run with the OAuth client (client-fixture-auth.ts).
 */
import { McpClient } from '../client/client.js';
import type { ClientHandlers } from '../client/types.js';
import { eraOf, isSupportedVersion } from '../mcp/revisions.js';
import type { Tool } from '../mcp/types.js';
import { consoleLogger } from '../util/logger.js';
import { conformanceOAuth } from './client-fixture-auth.js';
import { exerciseSkills } from './client-fixture-skills.js';
import { PACKAGE_VERSION } from '../util/version.js';

interface ToolCall {
  name: string;
  arguments?: Record<string, unknown>;
}

interface Context {
  toolCalls?: ToolCall[];
  [key: string]: unknown;
}

const handlers: ClientHandlers = {
  // Accept with no fields: the client fills in the schema's defaults (SEP-1034).
  elicitation: (params) => (params.mode === 'url' ? { action: 'accept' } : { action: 'accept', content: {} }),
  sampling: () => ({
    role: 'assistant',
    content: { type: 'text', text: 'This is a sampled answer from the conformance client.' },
    model: 'agentforge-conformance',
    stopReason: 'endTurn',
  }),
  roots: () => [{ uri: 'file:///tmp/agentforge-conformance', name: 'conformance' }],
};

/** Arguments for a tool the scenario gave none for: a plausible value for each required property. */
function sampleArguments(tool: Tool): Record<string, unknown> {
  const schema = tool.inputSchema as { properties?: Record<string, { type?: unknown }>; required?: string[] };
  const args: Record<string, unknown> = {};
  for (const name of schema.required ?? []) {
    const type = schema.properties?.[name]?.type;
    args[name] =
      type === 'number' || type === 'integer'
        ? 1
        : type === 'boolean'
          ? true
          : type === 'object'
            ? {}
            : type === 'array'
              ? []
              : 'test';
  }
  return args;
}

async function exercise(client: McpClient, scenario: string, context: Context): Promise<void> {
  // Extension scenarios (SEP-2640 skills) live in their own file.
  if (await exerciseSkills(client, scenario)) return;
  const tools = await client.listTools();
  if (scenario === 'json-schema-2020-12-preservation') {
    const focal = tools.find((tool) => tool.name !== 'json_schema_echo');
    if (focal) await client.callTool({ name: 'json_schema_echo', arguments: { schema: focal.inputSchema } });
    return;
  }
  if (scenario === 'json-schema-ref-no-deref' || scenario === 'initialize' || scenario === 'request-metadata')
    return;
  const calls =
    context.toolCalls ?? tools.map((tool) => ({ name: tool.name, arguments: sampleArguments(tool) }));
  if (scenario === 'sep-2322-client-request-state') {
    // Parallel calls: one call's input responses and state must never leak into another.
    await Promise.all(calls.map((call) => client.callTool(call)));
  } else {
    for (const call of calls) await client.callTool(call);
  }
  const capabilities = client.serverCapabilities;
  if (capabilities.resources) {
    for (const resource of await client.listResources()) await client.readResource({ uri: resource.uri });
  }
  if (capabilities.prompts) {
    for (const prompt of await client.listPrompts()) await client.getPrompt({ name: prompt.name });
  }
}

async function main(): Promise<void> {
  const url = process.argv[2];
  if (!url) throw new Error('usage: client-fixture <server-url>');
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as Context;
  const requested = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
  const pinned = isSupportedVersion(requested) && eraOf(requested) === 'handshake' ? requested : undefined;
  const client = await McpClient.connect(url, {
    clientInfo: { name: 'agentforge-conformance-client', version: PACKAGE_VERSION },
    handlers,
    logger: consoleLogger,
    timeoutMs: 20_000,
    ...(pinned ? { protocolVersion: pinned } : {}),
    ...(scenario.startsWith('auth/')
      ? { oauth: conformanceOAuth(url, scenario, context, consoleLogger) }
      : {}),
  });
  try {
    await exercise(client, scenario, context);
  } finally {
    await client.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error('conformance client failed:', error);
    process.exit(1);
  },
);
