// Client side on the official SDK v1 (@modelcontextprotocol/sdk 1.x).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { wrapSdkClient as wrap } from '../lib/sdk-client.mjs';

export const name = 'sdk1';

export async function connectStdio({ command, args }) {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  const transport = new StdioClientTransport({ command, args, stderr: 'inherit' });
  await client.connect(transport);
  return wrap(client, transport, (params, options) => client.callTool(params, undefined, options));
}

export async function connectHttp(url) {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return wrap(client, transport, (params, options) => client.callTool(params, undefined, options));
}
