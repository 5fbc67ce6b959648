/**
 * Conformance fixture: tools that ask the client for input. The same handlers serve both eras: server-initiated
 * requests on a handshake session, input_required (MRTR) on 2026-07-28 (see server-fixture.ts).
 */
import type { InputRequest } from '../mcp/types.js';
import type { McpServer, RegisteredHandle } from '../server/index.js';
import { NAME_SCHEMA, text } from './server-fixture-content.js';

export function legacyInputTools(server: McpServer): void {
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
}

export function enumElicitationTools(server: McpServer): void {
  server.registerTool(
    'test_elicitation_sep1034_defaults',
    { description: 'Elicitation with defaults' },
    async (_a, context) => {
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
      return text(
        `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`,
      );
    },
  );
  server.registerTool(
    'test_elicitation_sep1330_enums',
    { description: 'Elicitation with every enum form' },
    async (_a, context) => {
      const options = (prefix: string, titles: string[]) =>
        titles.map((title, i) => ({ const: `${prefix}${i + 1}`, title }));
      const answer = await context.elicit({
        message: 'Pick your options',
        requestedSchema: {
          type: 'object',
          properties: {
            untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            titledSingle: {
              type: 'string',
              oneOf: options('value', ['First Option', 'Second Option', 'Third Option']),
            },
            legacyEnum: {
              type: 'string',
              enum: ['opt1', 'opt2', 'opt3'],
              enumNames: ['Option One', 'Option Two', 'Option Three'],
            },
            untitledMulti: {
              type: 'array',
              items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
            },
            titledMulti: {
              type: 'array',
              items: { anyOf: options('value', ['First Choice', 'Second Choice', 'Third Choice']) },
            },
          },
        },
      });
      return text(
        `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`,
      );
    },
  );
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

export function mrtrTools(server: McpServer): void {
  server.registerTool(
    'test_input_required_result_elicitation',
    { description: 'MRTR: asks for a name' },
    async (_a, context) => {
      const answer = await context.elicit(askName('What is your name?').params as never, {
        key: 'user_name',
      });
      return text(`Hello, ${String(answer.content?.name ?? 'stranger')}!`);
    },
  );
  server.registerTool(
    'test_input_required_result_sampling',
    { description: 'MRTR: asks the model' },
    async (_a, context) => {
      const reply = await context.sample(askSample('What is the capital of France?', 100).params as never, {
        key: 'capital_question',
      });
      return text(`Model says: ${sampledText(reply)}`);
    },
  );
  server.registerTool(
    'test_input_required_result_list_roots',
    { description: 'MRTR: asks for roots' },
    async (_a, context) => {
      const { roots } = await context.listRoots({ key: 'client_roots' });
      return text(`Roots: ${roots.map((root) => root.uri).join(', ')}`);
    },
  );
  server.registerTool(
    'test_input_required_result_request_state',
    { description: 'MRTR: round-trips requestState' },
    async (_a, context) => {
      const answer = await context.elicit(
        {
          message: 'Please confirm',
          requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
        },
        { key: 'confirm' },
      );
      // inputRound > 0 only when a verified requestState came back with the answer.
      const state = context.era === 'handshake' || context.inputRound > 0 ? 'state-ok' : 'state-missing';
      return text(`${state}: confirmed=${String(answer.content?.ok)}`);
    },
  );
  server.registerTool(
    'test_input_required_result_tampered_state',
    { description: 'MRTR: sealed requestState' },
    async (_a, context) => {
      const answer = await context.elicit(
        {
          message: 'Please confirm',
          requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
        },
        { key: 'confirm' },
      );
      return text(`confirmed=${String(answer.content?.ok)}`);
    },
  );
}

export function mrtrCompositeTools(server: McpServer): void {
  server.registerTool(
    'test_input_required_result_multiple_inputs',
    { description: 'MRTR: three inputs at once' },
    async (_a, context) => {
      const answers = await context.requestInput({
        user_name: askName('What is your name?'),
        greeting: askSample('Generate a greeting', 50),
        client_roots: ROOTS_REQUEST,
      });
      const name = (answers.user_name as { content?: { name?: unknown } }).content?.name;
      return text(
        `${sampledText(answers.greeting)} ${String(name)} (${(answers.client_roots as { roots: unknown[] }).roots.length} roots)`,
      );
    },
  );
  server.registerTool(
    'test_input_required_result_multi_round',
    { description: 'MRTR: two rounds' },
    async (_a, context) => {
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
    },
  );
  server.registerTool(
    'test_input_required_result_capabilities',
    { description: 'MRTR: only declared capabilities' },
    async (_a, context) => {
      const caps = context.clientCapabilities;
      const requests: Record<string, InputRequest> = {};
      if (caps.sampling) requests.greeting = askSample('Generate a greeting', 50);
      if (caps.elicitation) requests.user_name = askName('What is your name?');
      if (caps.roots) requests.client_roots = ROOTS_REQUEST;
      if (Object.keys(requests).length === 0) return text('The client declared no input capabilities');
      const answers = await context.requestInput(requests);
      return text(`Received ${Object.keys(answers).sort().join(', ')}`);
    },
  );
}

export function statelessProbeTools(server: McpServer): void {
  server.registerTool(
    'test_missing_capability',
    { description: 'Needs the sampling capability', requiredClientCapabilities: { sampling: {} } },
    async (_a, context) => {
      const reply = await context.sample(askSample('Say hello', 20).params as never);
      return text(`Sampled: ${sampledText(reply)}`);
    },
  );
  server.registerTool(
    'test_streaming_elicitation',
    { description: 'Asks for input mid-call' },
    async (_a, context) => {
      await context.progress(0, 1, 'asking');
      const answer = await context.elicit({ message: 'Continue?', requestedSchema: NAME_SCHEMA });
      return text(`Answered: ${answer.action}`);
    },
  );
  let dynamicTool: RegisteredHandle<unknown> | undefined;
  server.registerTool('test_trigger_tool_change', { description: 'Adds or removes a tool' }, () => {
    if (dynamicTool) {
      dynamicTool.remove();
      dynamicTool = undefined;
      return text('Removed test_dynamic_tool');
    }
    dynamicTool = server.registerTool('test_dynamic_tool', { description: 'Appears and disappears' }, () =>
      text('dynamic'),
    );
    return text('Added test_dynamic_tool');
  });
  let dynamicPrompt: RegisteredHandle<unknown> | undefined;
  server.registerTool('test_trigger_prompt_change', { description: 'Adds or removes a prompt' }, () => {
    if (dynamicPrompt) {
      dynamicPrompt.remove();
      dynamicPrompt = undefined;
      return text('Removed test_dynamic_prompt');
    }
    dynamicPrompt = server.registerPrompt(
      'test_dynamic_prompt',
      { description: 'Appears and disappears' },
      () => ({
        messages: [{ role: 'user', content: { type: 'text', text: 'dynamic' } }],
      }),
    );
    return text('Added test_dynamic_prompt');
  });
}
