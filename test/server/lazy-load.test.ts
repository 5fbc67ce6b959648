/**
 * What `import 'agentforge/server'` loads, in a real child process on the built (bundled) package: a stdio server
 * pays for neither the HTTP transport nor node:crypto until it uses them (startup to the first tools/list), nor
 * for ajv while its schemas stay in the compiled subset.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DIST = join(import.meta.dirname, '..', '..', 'dist');

// Records every module the child resolves (a loader hook on its own thread posts each URL back), runs `body`,
// then prints the project's files loaded and the builtins compiled.
function loadedBy(body: string): { files: string[]; builtins: string[] } {
  const hook = `let port;export function initialize(data){port=data.port}export async function resolve(s,c,n){const r=await n(s,c);port.postMessage(r.url);return r}`;
  const script = `
    import { register } from 'node:module';
    import { MessageChannel } from 'node:worker_threads';
    const urls = new Set();
    const { port1, port2 } = new MessageChannel();
    port1.on('message', (url) => urls.add(url));
    register('data:text/javascript,${encodeURIComponent(hook)}', { data: { port: port2 }, transferList: [port2] });
    const before = new Set(process.moduleLoadList);
    ${body}
    await new Promise((resolve) => setTimeout(resolve, 100));
    port1.close();
    const files = [...urls].filter((u) => u.includes('/dist/')).map((u) => u.slice(u.indexOf('/dist/') + 6));
    const builtins = process.moduleLoadList.filter((m) => !before.has(m) && m.startsWith('NativeModule '));
    process.stdout.write(JSON.stringify({ files, builtins: builtins.map((m) => m.slice(13)) }));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { DIST },
  });
  return JSON.parse(out) as { files: string[]; builtins: string[] };
}

describe('importing agentforge/server', () => {
  const stdioServer = `
    const { McpServer } = await import(process.env.DIST + '/server/index.js');
    const server = new McpServer({ name: 'lazy', version: '1.0.0' });
    server.registerTool('echo', { inputSchema: { type: 'object' } }, () => ({ content: [] }));
  `;

  it('loads no HTTP transport and no node:crypto for a stdio server', () => {
    const { files, builtins } = loadedBy(stdioServer);
    expect(files).toContain('server/index.js');
    expect(builtins).not.toContain('crypto');
    expect(builtins).not.toContain('http');
  });

  // The package is bundled per entry, so the HTTP transport is a chunk of its own: listening loads files (and
  // node:http) that a stdio server never does.
  it('loads the HTTP transport once the server listens', () => {
    const stdio = loadedBy(stdioServer);
    const { files, builtins } = loadedBy(`${stdioServer}
      const listening = await server.listen({ port: 0 });
      await listening.close();
    `);
    expect(builtins).toContain('http');
    expect(files).toEqual(expect.arrayContaining(stdio.files));
    expect(files.filter((file) => !stdio.files.includes(file)).length).toBeGreaterThan(0);
  });
});

/**
 * Registers a tool with `schema` in a child process and calls it with `args` over an in-memory pair
 * (2026-07-28, stateless); says whether ajv's modules were loaded and what the call answered.
 */
function ajvLoadedBy(schema: object, args: object): { loaded: boolean; outcome: unknown } {
  const script = `
    import { createRequire } from 'node:module';
    const { McpServer } = await import(process.env.DIST + '/server/index.js');
    const { InMemoryTransport } = await import(process.env.DIST + '/transports/memory/index.js');
    const server = new McpServer({ name: 'lazy', version: '1.0.0' });
    server.registerTool('check', { inputSchema: JSON.parse(process.env.SCHEMA) }, (args) => ({
      content: [{ type: 'text', text: JSON.stringify(args) }],
    }));
    const [client, channel] = InMemoryTransport.createLinkedPair();
    await server.serve(channel);
    const reply = new Promise((resolve) => { client.onmessage = resolve; });
    await client.start();
    await client.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: {
      name: 'check',
      arguments: JSON.parse(process.env.ARGS),
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'lazy-test', version: '1.0.0' },
      },
    } });
    const { result } = await reply;
    const loaded = Object.keys(createRequire(process.env.DIST + '/').cache).some((path) => path.includes('/ajv/'));
    const outcome = { isError: result.isError === true, text: result.content[0].text };
    process.stdout.write(JSON.stringify({ loaded, outcome }));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { DIST, SCHEMA: JSON.stringify(schema), ARGS: JSON.stringify(args) },
  });
  return JSON.parse(out) as { loaded: boolean; outcome: unknown };
}

describe('validating tool arguments', () => {
  it('loads no ajv for an everyday schema', () => {
    const schema = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
    expect(ajvLoadedBy(schema, { text: 'hi' })).toEqual({
      loaded: false,
      outcome: { isError: false, text: '{"text":"hi"}' },
    });
    expect(ajvLoadedBy(schema, { text: 1 })).toEqual({
      loaded: false,
      outcome: { isError: true, text: 'Invalid arguments for tool check: /text must be string' },
    });
  });

  it('loads ajv for a schema outside the subset', () => {
    const schema = { type: 'object', anyOf: [{ required: ['a'] }, { required: ['b'] }] };
    expect(ajvLoadedBy(schema, { a: 1 })).toEqual({
      loaded: true,
      outcome: { isError: false, text: '{"a":1}' },
    });
  });
});
