/**
 * Interop through the gateway: the official SDK clients (v2 in both its modes, v1 over Streamable HTTP and the
 * legacy HTTP+SSE transport) to @modelcontextprotocol/server-everything; and era translation with an elicitation
 * crossing: a 2025-era caller to a 2026-07-28-only upstream, and a 2026-07-28 caller to a 2025-era-only upstream
 * (the official SDK v1 server).
 */
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as StreamableV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport as StreamableV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/client.js';
import { EraCache } from '../../src/client/server-caches.js';
import { EVERYTHING_SERVER } from '../client/helpers.js';
import { type Running, eventually, startGateway, textOf } from './support.js';

const FIXTURES = join(import.meta.dirname, 'fixtures');

interface SdkClient {
  listTools(): Promise<{ tools: Array<{ name: string }> }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  listResources(): Promise<{ resources: Array<{ uri: string }> }>;
  readResource(params: {
    uri: string;
  }): Promise<{ contents: Array<{ uri: string; text?: string; blob?: string }> }>;
  listPrompts(): Promise<{ prompts: Array<{ name: string }> }>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<{ messages: unknown[] }>;
  close(): Promise<void>;
}

let running: Running;

beforeAll(async () => {
  running = await startGateway({
    everything: { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'] },
    modern: { command: process.execPath, args: [join(FIXTURES, 'stateless-only-server.mjs')] },
    legacy: { command: process.execPath, args: [join(FIXTURES, 'sdk1-server.mjs')] },
  });
  // An upstream slower to start than the connect timeout (a loaded machine) joins later: wait for all three,
  // and for the catalog to take in their lists.
  await eventually(() => running.gateway.ready, 45_000);
  await running.gateway.settled();
}, 60_000);

afterAll(async () => {
  await running?.[Symbol.asyncDispose]();
});

const SDK_CLIENTS: Array<[string, () => Promise<SdkClient>]> = [
  [
    'SDK v2, version negotiation auto (2026-07-28)',
    async () => {
      const client = new ClientV2({ name: 'v2', version: '1' }, { versionNegotiation: { mode: 'auto' } });
      await client.connect(new StreamableV2(new URL(running.url)));
      return client as unknown as SdkClient;
    },
  ],
  [
    'SDK v2, legacy sessions',
    async () => {
      const client = new ClientV2({ name: 'v2', version: '1' }, { versionNegotiation: { mode: 'legacy' } });
      await client.connect(new StreamableV2(new URL(running.url)));
      return client as unknown as SdkClient;
    },
  ],
  [
    'SDK v1 over Streamable HTTP',
    async () => {
      const client = new ClientV1({ name: 'v1', version: '1' });
      await client.connect(new StreamableV1(new URL(running.url)));
      return client as unknown as SdkClient;
    },
  ],
  [
    'SDK v1 over HTTP+SSE (2024-11-05)',
    async () => {
      const client = new ClientV1({ name: 'v1-sse', version: '1' });
      await client.connect(new SSEClientTransport(new URL('/sse', running.url)));
      return client as unknown as SdkClient;
    },
  ],
];

describe.each(SDK_CLIENTS)('%s through the gateway to server-everything', (_label, connect) => {
  let client: SdkClient;
  beforeAll(async () => {
    client = await connect();
  });
  afterAll(async () => {
    await client?.close();
  });

  it('lists and calls its tools under the server prefix', async () => {
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['everything__echo', 'everything__get-sum']));
    const echo = (await client.callTool({ name: 'everything__echo', arguments: { message: 'hi' } })) as never;
    expect(textOf(echo)).toContain('hi');
    const sum = (await client.callTool({
      name: 'everything__get-sum',
      arguments: { a: 19, b: 23 },
    })) as never;
    expect(textOf(sum)).toContain('42');
  });

  it('reads its resources and gets its prompts', async () => {
    const resources = (await client.listResources()).resources;
    expect(resources.length).toBeGreaterThan(0);
    const first = resources[0]!;
    expect(first.uri.startsWith('everything+')).toBe(true);
    const read = await client.readResource({ uri: first.uri });
    expect(read.contents[0]?.uri).toBe(first.uri);
    expect(read.contents[0]?.text ?? read.contents[0]?.blob).toBeTruthy();
    const prompts = (await client.listPrompts()).prompts.map((prompt) => prompt.name);
    expect(prompts).toContain('everything__simple-prompt');
    const prompt = await client.getPrompt({ name: 'everything__simple-prompt' });
    expect(prompt.messages.length).toBeGreaterThan(0);
  });
});

describe('era translation with an elicitation crossing', () => {
  const accept = { elicitation: async () => ({ action: 'accept' as const, content: { city: 'Lyon' } }) };

  it('the upstreams really speak one era each', async () => {
    const eras = Object.fromEntries(running.gateway.host.servers().map((s) => [s.name, s.era]));
    expect(eras).toMatchObject({ modern: 'stateless', legacy: 'handshake' });
  });

  it('a 2025-11-25 caller uses the 2026-07-28-only upstream (MRTR answered by a server-initiated request)', async () => {
    const client = await running.connect({ protocolVersion: '2025-11-25', handlers: accept });
    expect(client.era).toBe('handshake');
    const result = await client.callTool({ name: 'modern__ask_user', arguments: { item: 'lamp' } });
    expect(textOf(result)).toBe('lamp to Lyon (stateless)');
  });

  it('a 2026-07-28 caller uses the 2025-only upstream (its elicitation/create becomes input_required)', async () => {
    const client = await running.connect({ protocolVersion: '2026-07-28', handlers: accept });
    expect(client.era).toBe('stateless');
    const result = await client.callTool({ name: 'legacy__ask_user', arguments: { item: 'desk' } });
    expect(textOf(result)).toBe('desk to Lyon');
    expect(running.gateway.openRequests).toBe(0);
  });

  it('keeps the upstream requestState inside: the caller sees only the gateway’s own', async () => {
    const seen: unknown[] = [];
    const client = await McpClient.connect(running.url, {
      eraCache: new EraCache(),
      protocolVersion: '2026-07-28',
      handlers: accept,
      middleware: [
        async (context, next) => {
          const result = await next(context);
          if (result.resultType === 'input_required') seen.push(result);
          return result;
        },
      ],
    });
    try {
      const result = await client.callTool({ name: 'modern__ask_user', arguments: { item: 'rug' } });
      expect(textOf(result)).toBe('rug to Lyon (stateless)');
      expect(seen).toHaveLength(1);
      const round = seen[0] as { inputRequests: Record<string, unknown>; requestState: string };
      // The upstream's own key is kept; the state is the gateway's seal, not the upstream's.
      expect(Object.keys(round.inputRequests)).toEqual(['destination']);
      expect(round.requestState).toMatch(/^v1\./);
    } finally {
      await client.close();
    }
  });

  it('an SDK v1 client answers an elicitation from the 2026-07-28-only upstream', async () => {
    const client = new ClientV1({ name: 'v1', version: '1' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({
      action: 'accept',
      content: { city: 'Nice' },
    }));
    await client.connect(new StreamableV1(new URL(running.url)));
    try {
      const result = await client.callTool({ name: 'modern__ask_user', arguments: { item: 'vase' } });
      expect(textOf(result as never)).toBe('vase to Nice (stateless)');
    } finally {
      await client.close();
    }
  });
});
