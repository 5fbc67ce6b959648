/**
 * The conformance "everything" server: the tools, resources and prompts the official suite's server scenarios
 * call (names and shapes from @modelcontextprotocol/conformance; see /work/notes/server-scenarios.md).
 * `node dist/conformance/server-fixture.js` serves Streamable HTTP on 127.0.0.1:$PORT/mcp;
 * `--stdio` serves both eras on stdin/stdout instead.
 */
import { pathToFileURL } from 'node:url';
import { delay } from '../util/abort.js';
import type { InputRequest, JSONObject } from '../mcp/types.js';
import { type HandlerContext, McpServer, type RegisteredHandle } from '../server/index.js';

// A 1x1 red PNG.
const RED_PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** A valid WAV file: 0.01 s of 8 kHz 8-bit mono silence. */
function silentWav(): string {
  const samples = 80;
  const buffer = Buffer.alloc(44 + samples, 0x80);
  buffer.write('RIFF', 0, 'ascii');
  buffer.writeUInt32LE(36 + samples, 4);
  buffer.write('WAVEfmt ', 8, 'ascii');
  buffer.writeUInt32LE(16, 16);
  buffer.writeUInt16LE(1, 20); // PCM
  buffer.writeUInt16LE(1, 22); // mono
  buffer.writeUInt32LE(8000, 24);
  buffer.writeUInt32LE(8000, 28);
  buffer.writeUInt16LE(1, 32);
  buffer.writeUInt16LE(8, 34);
  buffer.write('data', 36, 'ascii');
  buffer.writeUInt32LE(samples, 40);
  return buffer.toString('base64');
}

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

const NAME_SCHEMA = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } as const;

/** SEP-1613 / SEP-2106: the suite checks these keywords come back verbatim in tools/list. */
const JSON_SCHEMA_2020_12 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' },
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

function contentTools(server: McpServer): void {
  server.registerTool('test_simple_text', { description: 'Returns simple text content' }, () =>
    text('This is a simple text response for testing.'),
  );
  server.registerTool('test_image_content', { description: 'Returns image content' }, () => ({
    content: [{ type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' }],
  }));
  const wav = silentWav();
  server.registerTool('test_audio_content', { description: 'Returns audio content' }, () => ({
    content: [{ type: 'audio', data: wav, mimeType: 'audio/wav' }],
  }));
  server.registerTool('test_embedded_resource', { description: 'Returns an embedded resource' }, () => ({
    content: [
      {
        type: 'resource',
        resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' },
      },
    ],
  }));
  server.registerTool('test_multiple_content_types', { description: 'Returns text, image and resource' }, () => ({
    content: [
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' },
      {
        type: 'resource',
        resource: {
          uri: 'test://mixed-content-resource',
          mimeType: 'application/json',
          text: JSON.stringify({ test: 'data', value: 123 }),
        },
      },
    ],
  }));
  server.registerTool('test_error_handling', { description: 'Always fails' }, () => {
    throw new Error('This tool intentionally returns an error for testing');
  });
  server.registerTool('json_schema_2020_12_tool', {
    description: 'Tool with JSON Schema 2020-12 features',
    inputSchema: JSON_SCHEMA_2020_12,
  }, (args) => text(`Received ${JSON.stringify(args)}`));
  server.registerTool(
    'test_custom_header',
    {
      description: 'Mirrors its region argument into the Mcp-Param-Region header (x-mcp-header)',
      inputSchema: {
        type: 'object',
        properties: { region: { type: 'string', 'x-mcp-header': 'Region', description: 'Deployment region' } },
        required: ['region'],
      },
    },
    ({ region }: { region: string }) => text(`region=${region}`),
  );
}

async function logThree(context: HandlerContext): Promise<void> {
  await context.log('info', 'Tool execution started');
  await delay(50, context.signal);
  await context.log('info', 'Tool processing data');
  await delay(50, context.signal);
  await context.log('info', 'Tool execution completed');
}

function utilityTools(server: McpServer): void {
  server.registerTool('test_tool_with_progress', { description: 'Reports progress 0, 50, 100 of 100' }, async (_a, context) => {
    for (const step of [0, 50, 100]) {
      await context.progress(step, 100, `step ${step}`);
      if (step < 100) await delay(50, context.signal);
    }
    return text('Progress test completed');
  });
  server.registerTool('test_tool_with_logging', { description: 'Sends three info logs' }, async (_a, context) => {
    await logThree(context);
    return text('Logging test completed');
  });
  server.registerTool('test_logging_tool', { description: 'Sends three info logs' }, async (_a, context) => {
    await logThree(context);
    return text('Logging tool completed');
  });
  server.registerTool('test_reconnection', { description: 'Closes the SSE stream mid-call (SEP-1699)' }, async (_a, context) => {
    const close = context.extra?.closeSSEStream;
    if (typeof close === 'function') close();
    await delay(100, context.signal);
    return text('Reconnection test completed');
  });
}

function legacyInputTools(server: McpServer): void {
  server.registerTool(
    'test_sampling',
    {
      description: 'Asks the client to sample',
      inputSchema: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] },
    },
    async ({ prompt }: { prompt: string }, context) => {
      const reply = await context.sample({
        messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
        maxTokens: 100,
      });
      const content = reply.content as { type?: string; text?: string };
      return text(`LLM response: ${content.type === 'text' ? content.text : JSON.stringify(reply.content)}`);
    },
  );
  server.registerTool(
    'test_elicitation',
    {
      description: 'Asks the user for information',
      inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
    },
    async ({ message }: { message: string }, context) => {
      const answer = await context.elicit({
        message,
        requestedSchema: {
          type: 'object',
          properties: {
            username: { type: 'string', description: "User's response" },
            email: { type: 'string', description: "User's email address" },
          },
          required: ['username', 'email'],
        },
      });
      return text(`User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`);
    },
  );
  server.registerTool('test_elicitation_sep1034_defaults', { description: 'Elicitation with defaults' }, async (_a, context) => {
    const answer = await context.elicit({
      message: 'Please review your information',
      requestedSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', default: 'John Doe' },
          age: { type: 'integer', default: 30 },
          score: { type: 'number', default: 95.5 },
          status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
          verified: { type: 'boolean', default: true },
        },
      },
    });
    return text(`Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`);
  });
  server.registerTool('test_elicitation_sep1330_enums', { description: 'Elicitation with every enum form' }, async (_a, context) => {
    const options = (prefix: string, titles: string[]) => titles.map((title, i) => ({ const: `${prefix}${i + 1}`, title }));
    const answer = await context.elicit({
      message: 'Pick your options',
      requestedSchema: {
        type: 'object',
        properties: {
          untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
          titledSingle: { type: 'string', oneOf: options('value', ['First Option', 'Second Option', 'Third Option']) },
          legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
          untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
          titledMulti: {
            type: 'array',
            items: { anyOf: options('value', ['First Choice', 'Second Choice', 'Third Choice']) },
          },
        },
      },
    });
    return text(`Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`);
  });
}

const askName = (message: string): InputRequest => ({
  method: 'elicitation/create',
  params: { message, requestedSchema: NAME_SCHEMA },
});
const askSample = (prompt: string, maxTokens: number): InputRequest => ({
  method: 'sampling/createMessage',
  params: { messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens },
});
const ROOTS_REQUEST: InputRequest = { method: 'roots/list', params: {} };

function sampledText(value: unknown): string {
  const content = (value as { content?: { text?: unknown } }).content;
  return typeof content?.text === 'string' ? content.text : JSON.stringify(content);
}

function mrtrTools(server: McpServer): void {
  server.registerTool('test_input_required_result_elicitation', { description: 'MRTR: asks for a name' }, async (_a, context) => {
    const answer = await context.elicit(askName('What is your name?').params as never, { key: 'user_name' });
    return text(`Hello, ${String(answer.content?.name ?? 'stranger')}!`);
  });
  server.registerTool('test_input_required_result_sampling', { description: 'MRTR: asks the model' }, async (_a, context) => {
    const reply = await context.sample(askSample('What is the capital of France?', 100).params as never, {
      key: 'capital_question',
    });
    return text(`Model says: ${sampledText(reply)}`);
  });
  server.registerTool('test_input_required_result_list_roots', { description: 'MRTR: asks for roots' }, async (_a, context) => {
    const { roots } = await context.listRoots({ key: 'client_roots' });
    return text(`Roots: ${roots.map((root) => root.uri).join(', ')}`);
  });
  server.registerTool('test_input_required_result_request_state', { description: 'MRTR: round-trips requestState' }, async (_a, context) => {
    const answer = await context.elicit(
      { message: 'Please confirm', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } },
      { key: 'confirm' },
    );
    // inputRound > 0 only when a verified requestState came back with the answer.
    const state = context.era === 'handshake' || context.inputRound > 0 ? 'state-ok' : 'state-missing';
    return text(`${state}: confirmed=${String(answer.content?.ok)}`);
  });
  server.registerTool('test_input_required_result_tampered_state', { description: 'MRTR: sealed requestState' }, async (_a, context) => {
    const answer = await context.elicit(
      { message: 'Please confirm', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } },
      { key: 'confirm' },
    );
    return text(`confirmed=${String(answer.content?.ok)}`);
  });
  server.registerTool('test_input_required_result_multiple_inputs', { description: 'MRTR: three inputs at once' }, async (_a, context) => {
    const answers = await context.requestInput({
      user_name: askName('What is your name?'),
      greeting: askSample('Generate a greeting', 50),
      client_roots: ROOTS_REQUEST,
    });
    const name = (answers.user_name as { content?: { name?: unknown } }).content?.name;
    return text(`${sampledText(answers.greeting)} ${String(name)} (${(answers.client_roots as { roots: unknown[] }).roots.length} roots)`);
  });
  server.registerTool('test_input_required_result_multi_round', { description: 'MRTR: two rounds' }, async (_a, context) => {
    const step1 = await context.elicit(
      { message: 'Step 1: What is your name?', requestedSchema: NAME_SCHEMA },
      { key: 'step1' },
    );
    const step2 = await context.elicit(
      {
        message: 'Step 2: What is your favorite color?',
        requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] },
      },
      { key: 'step2' },
    );
    return text(`${String(step1.content?.name)} likes ${String(step2.content?.color)}`);
  });
  server.registerTool('test_input_required_result_capabilities', { description: 'MRTR: only declared capabilities' }, async (_a, context) => {
    const caps = context.clientCapabilities;
    const requests: Record<string, InputRequest> = {};
    if (caps.sampling) requests.greeting = askSample('Generate a greeting', 50);
    if (caps.elicitation) requests.user_name = askName('What is your name?');
    if (caps.roots) requests.client_roots = ROOTS_REQUEST;
    if (Object.keys(requests).length === 0) return text('The client declared no input capabilities');
    const answers = await context.requestInput(requests);
    return text(`Received ${Object.keys(answers).sort().join(', ')}`);
  });
}

function statelessProbeTools(server: McpServer): void {
  server.registerTool(
    'test_missing_capability',
    { description: 'Needs the sampling capability', requiredClientCapabilities: { sampling: {} } },
    async (_a, context) => {
      const reply = await context.sample(askSample('Say hello', 20).params as never);
      return text(`Sampled: ${sampledText(reply)}`);
    },
  );
  server.registerTool('test_streaming_elicitation', { description: 'Asks for input mid-call' }, async (_a, context) => {
    await context.progress(0, 1, 'asking');
    const answer = await context.elicit({ message: 'Continue?', requestedSchema: NAME_SCHEMA });
    return text(`Answered: ${answer.action}`);
  });
  let dynamicTool: RegisteredHandle<unknown> | undefined;
  server.registerTool('test_trigger_tool_change', { description: 'Adds or removes a tool' }, () => {
    if (dynamicTool) {
      dynamicTool.remove();
      dynamicTool = undefined;
      return text('Removed test_dynamic_tool');
    }
    dynamicTool = server.registerTool('test_dynamic_tool', { description: 'Appears and disappears' }, () => text('dynamic'));
    return text('Added test_dynamic_tool');
  });
  let dynamicPrompt: RegisteredHandle<unknown> | undefined;
  server.registerTool('test_trigger_prompt_change', { description: 'Adds or removes a prompt' }, () => {
    if (dynamicPrompt) {
      dynamicPrompt.remove();
      dynamicPrompt = undefined;
      return text('Removed test_dynamic_prompt');
    }
    dynamicPrompt = server.registerPrompt('test_dynamic_prompt', { description: 'Appears and disappears' }, () => ({
      messages: [{ role: 'user', content: { type: 'text', text: 'dynamic' } }],
    }));
    return text('Added test_dynamic_prompt');
  });
}

function prompts(server: McpServer): void {
  const user = (content: JSONObject) => ({ role: 'user' as const, content: content as never });
  server.registerPrompt('test_simple_prompt', { description: 'A simple prompt' }, () => ({
    messages: [user({ type: 'text', text: 'This is a simple prompt for testing.' })],
  }));
  const cities = ['paris', 'park', 'party', 'prague', 'porto', 'test', 'testing'];
  server.registerPrompt(
    'test_prompt_with_arguments',
    {
      description: 'A prompt with arguments',
      arguments: [
        { name: 'arg1', description: 'First test argument', required: true },
        { name: 'arg2', description: 'Second test argument', required: true },
      ],
      complete: { arg1: (value) => cities.filter((city) => city.startsWith(value.toLowerCase())) },
    },
    ({ arg1, arg2 }) => ({ messages: [user({ type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` })] }),
  );
  server.registerPrompt(
    'test_prompt_with_embedded_resource',
    {
      description: 'A prompt with an embedded resource',
      arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
    },
    ({ resourceUri }) => ({
      messages: [
        user({ type: 'resource', resource: { uri: String(resourceUri), mimeType: 'text/plain', text: 'Embedded resource content for testing.' } }),
        user({ type: 'text', text: 'Please process the embedded resource above.' }),
      ],
    }),
  );
  server.registerPrompt('test_prompt_with_image', { description: 'A prompt with an image' }, () => ({
    messages: [
      user({ type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' }),
      user({ type: 'text', text: 'Please analyze the image above.' }),
    ],
  }));
  server.registerPrompt('test_input_required_result_prompt', { description: 'MRTR on prompts/get' }, async (_args, context) => {
    const answer = await context.elicit(
      {
        message: 'What context should the prompt use?',
        requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] },
      },
      { key: 'user_context' },
    );
    return { messages: [user({ type: 'text', text: `Use this context: ${String(answer.content?.context)}` })] };
  });
}

function resources(server: McpServer): void {
  server.registerResource('static-text', 'test://static-text', { description: 'Static text', mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
  }));
  server.registerResource('static-binary', 'test://static-binary', { description: 'A PNG image', mimeType: 'image/png' }, (uri) => ({
    contents: [{ uri, mimeType: 'image/png', blob: RED_PIXEL_PNG }],
  }));
  server.registerResource('watched-resource', 'test://watched-resource', { description: 'Subscribable', mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri, mimeType: 'text/plain', text: `Watched resource read at ${new Date().toISOString()}` }],
  }));
  server.registerResourceTemplate(
    'template-data',
    'test://template/{id}/data',
    { description: 'Data by id', mimeType: 'application/json', complete: { id: (value) => ['123', '456', '789'].filter((id) => id.startsWith(value)) } },
    (uri, variables) => ({
      contents: [
        {
          uri,
          mimeType: 'application/json',
          text: JSON.stringify({ id: variables.id, templateTest: true, data: `Data for ID: ${String(variables.id)}` }),
        },
      ],
    }),
  );
}

export function createFixtureServer(): McpServer {
  const server = new McpServer({
    name: 'agentforge-conformance-server',
    version: '0.1.0',
    instructions: 'The agentforge conformance fixture: test tools, resources and prompts.',
  });
  contentTools(server);
  utilityTools(server);
  legacyInputTools(server);
  mrtrTools(server);
  statelessProbeTools(server);
  prompts(server);
  resources(server);
  return server;
}

async function main(): Promise<void> {
  const server = createFixtureServer();
  if (process.argv.includes('--stdio')) {
    await server.serveStdio();
    return;
  }
  const port = Number(process.env.PORT ?? 3000);
  await server.listen({ port, host: '127.0.0.1', path: '/mcp' });
  console.error(`conformance server listening on http://127.0.0.1:${port}/mcp`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
