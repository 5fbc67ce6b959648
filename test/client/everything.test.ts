/**
 * Against @modelcontextprotocol/server-everything over stdio: list everything, call every tool that needs no
 * network, read every resource, get every prompt, answer its elicitation and sampling.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/client.js';
import type { ClientHandlers } from '../../src/client/types.js';
import type { CallToolResult, ElicitRequestParams } from '../../src/mcp/types.js';
import { EVERYTHING_SERVER } from './helpers.js';

/** Arguments per tool; tools absent here are called with {}. */
const ARGUMENTS: Record<string, Record<string, unknown>> = {
  echo: { message: 'hello everything' },
  'get-annotated-message': { messageType: 'success', includeImage: true },
  'get-structured-content': { location: 'Chicago' },
  'get-sum': { a: 19, b: 23 },
  'gzip-file-as-resource': {
    name: 'hello.gz',
    data: 'data:text/plain;base64,aGVsbG8=',
    outputType: 'resource',
  },
  'trigger-long-running-operation': { duration: 0.4, steps: 2 },
  'trigger-sampling-request': { prompt: 'Say something', maxTokens: 20 },
  'trigger-url-elicitation': { url: 'https://example.com/consent' },
};

/** Tools that run as tasks (an extension this client does not implement). */
const TASK_TOOLS = new Set([
  'simulate-research-query',
  'trigger-sampling-request-async',
  'trigger-elicitation-request-async',
]);

describe('server-everything over stdio', () => {
  let client: McpClient;
  const elicitations: ElicitRequestParams[] = [];
  const samplings: unknown[] = [];
  const logs: unknown[] = [];

  beforeAll(async () => {
    const handlers: ClientHandlers = {
      elicitation: async (params) => {
        elicitations.push(params);
        return params.mode === 'url' ? { action: 'accept' } : { action: 'accept', content: { name: 'Ada' } };
      },
      sampling: async (params) => {
        samplings.push(params);
        return {
          role: 'assistant',
          content: { type: 'text', text: 'sampled!' },
          model: 'test-model',
          stopReason: 'endTurn',
        };
      },
      roots: async () => [{ uri: 'file:///workspace', name: 'workspace' }],
    };
    client = await McpClient.connect(
      { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'] },
      { handlers },
    );
    client.on('log', (log) => logs.push(log));
  });
  afterAll(async () => {
    await client?.close();
  });

  it('speaks the handshake era', () => {
    expect(client.era).toBe('handshake');
    expect(client.serverInfo?.name).toContain('everything');
  });

  it('calls every tool that needs no network', async () => {
    const tools = await client.listTools();
    expect(tools.length).toBeGreaterThan(10);
    const results = new Map<string, CallToolResult>();
    for (const tool of tools) {
      if (TASK_TOOLS.has(tool.name) || tool.execution?.taskSupport === 'required') continue;
      const result = await client.callTool({ name: tool.name, arguments: ARGUMENTS[tool.name] ?? {} });
      expect(result.isError ?? false, `${tool.name}: ${JSON.stringify(result.content)}`).toBe(false);
      results.set(tool.name, result);
    }
    expect(JSON.stringify(results.get('echo')?.content)).toContain('hello everything');
    expect(JSON.stringify(results.get('get-sum')?.content)).toContain('42');
    expect(JSON.stringify(results.get('trigger-sampling-request')?.content)).toContain('sampled!');
    expect(JSON.stringify(results.get('get-roots-list')?.content)).toContain('file:///workspace');
    expect(results.get('get-tiny-image')?.content.some((block) => block.type === 'image')).toBe(true);
    expect(samplings).toHaveLength(1);
    expect(elicitations.map((e) => e.mode ?? 'form').sort()).toEqual(['form', 'url']);
  });

  it('reads every resource and template instance', async () => {
    const resources = await client.listResources();
    expect(resources.length).toBeGreaterThan(0);
    for (const resource of resources) {
      const read = await client.readResource({ uri: resource.uri });
      expect(read.contents.length, resource.uri).toBeGreaterThan(0);
    }
    const templates = await client.listResourceTemplates();
    expect(templates.length).toBeGreaterThan(0);
    const read = await client.readResource({ uri: 'demo://resource/dynamic/text/1' });
    expect(read.contents[0]?.uri).toBe('demo://resource/dynamic/text/1');
  });

  it('gets every prompt', async () => {
    const prompts = await client.listPrompts();
    const args: Record<string, Record<string, string>> = {
      'args-prompt': { city: 'Paris', state: 'IDF' },
      'completable-prompt': { department: 'Engineering', name: 'Alice' },
      'resource-prompt': { resourceType: 'Text', resourceId: '1' },
    };
    for (const prompt of prompts) {
      const result = await client.getPrompt({
        name: prompt.name,
        ...(args[prompt.name] ? { arguments: args[prompt.name] } : {}),
      });
      expect(result.messages.length, prompt.name).toBeGreaterThan(0);
    }
  });

  it('completes prompt arguments', async () => {
    const result = await client.complete({
      ref: { type: 'ref/prompt', name: 'completable-prompt' },
      argument: { name: 'department', value: 'Eng' },
    });
    expect(result.completion.values).toContain('Engineering');
  });
});
