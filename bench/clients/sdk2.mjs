// Client side on the official SDK v2 (@modelcontextprotocol/client 2.4.x). Version negotiation 'auto' (the
// probe that reaches the 2026-07-28 era against a modern server); 'legacy' for the legacy session mode.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { wrapSdkClient as wrap } from '../lib/sdk-client.mjs';

export const name = 'sdk2';

export async function connectStdio({ command, args }) {
  const client = new Client({ name: 'bench', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  const transport = new StdioClientTransport({ command, args, stderr: 'inherit' });
  await client.connect(transport);
  return wrap(client, transport, (params, options) => client.callTool(params, options));
}

export async function connectHttp(url, { mode }) {
  const client = new Client(
    { name: 'bench', version: '1.0.0' },
    { versionNegotiation: { mode: mode === 'modern' ? 'auto' : 'legacy' } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return wrap(client, transport, (params, options) => client.callTool(params, options));
}
