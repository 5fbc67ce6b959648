/**
 * What agentforge/otel records, and what it will not let a peer make it record: content only when asked for,
 * and a hostile client's strings bounded in span names.
 */
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/client.js';
import { EraCache } from '../../src/client/server-caches.js';
import { clientTracing } from '../../src/otel/index.js';
import { OTEL_SERVER, named, registerSdk, rootedIn, spanFile } from './support.js';

const sdk = registerSdk();
const underRoot = rootedIn(sdk);
afterEach(() => sdk.spans.reset());

describe('recordContent', () => {
  it('puts tools/call arguments and results on both spans when opted in', async () => {
    const spans = spanFile();
    const client = await McpClient.connect(
      {
        command: process.execPath,
        args: [OTEL_SERVER],
        env: { OTEL_SPANS_FILE: spans.path, OTEL_RECORD_CONTENT: '1' },
      },
      { middleware: [clientTracing({ recordContent: true })], eraCache: new EraCache() },
    );
    try {
      await underRoot(() => client.callTool({ name: 'echo', arguments: { text: 'private' } }));
      const clientSpan = named(sdk.spans.getFinishedSpans(), 'tools/call echo');
      expect(JSON.parse(String(clientSpan.attributes['gen_ai.tool.call.arguments']))).toEqual({
        text: 'private',
      });
      expect(JSON.parse(String(clientSpan.attributes['gen_ai.tool.call.result'])).content).toEqual([
        { type: 'text', text: 'private' },
      ]);
      const serverSpan = (await spans.waitFor('echo work')).find((s) => s.name === 'tools/call echo')!;
      expect(serverSpan.attributes['gen_ai.tool.call.arguments']).toBe('{"text":"private"}');
      expect(String(serverSpan.attributes['gen_ai.tool.call.result'])).toContain('private');
    } finally {
      await client.close();
      spans.dispose();
    }
  });
});

describe('resources', () => {
  it('a resources/read is named by its method; the URI is an attribute, never in the name', async () => {
    const spans = spanFile();
    const client = await McpClient.connect(
      { command: process.execPath, args: [OTEL_SERVER], env: { OTEL_SPANS_FILE: spans.path } },
      { middleware: [clientTracing()], eraCache: new EraCache() },
    );
    try {
      await underRoot(() => client.readResource({ uri: 'file:///notes.txt' }));
      const clientSpan = named(sdk.spans.getFinishedSpans(), 'resources/read');
      expect(clientSpan.attributes['mcp.resource.uri']).toBe('file:///notes.txt');
      const serverSpan = (await spans.waitFor('resources/read')).find((s) => s.name === 'resources/read');
      expect(serverSpan?.attributes['mcp.resource.uri']).toBe('file:///notes.txt');
    } finally {
      await client.close();
      spans.dispose();
    }
  });
});

describe('a hostile peer', () => {
  it('an unknown method a megabyte long is answered -32601 and named in 256 characters', async () => {
    const spans = spanFile();
    const child = spawn(process.execPath, [OTEL_SERVER], {
      env: { ...process.env, OTEL_SPANS_FILE: spans.path },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    try {
      const method = 'x'.repeat(1 << 20);
      const answer = new Promise<string>((resolve) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
        });
      });
      const meta = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      };
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { _meta: meta } })}\n`);
      expect(JSON.parse(await answer).error.code).toBe(-32601);
      const written = await spans.waitFor('x'.repeat(256));
      const span = written.find((s) => s.name.startsWith('xxx'));
      expect(span?.name).toHaveLength(256);
      expect(span?.attributes['error.type']).toBe('-32601');
    } finally {
      child.kill();
      spans.dispose();
    }
  });
});
