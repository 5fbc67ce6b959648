// Client side on agentforge's McpClient (../dist). Modern HTTP: the client's own era choice (2026-07-28
// against a modern server); legacy session mode: pinned to 2025-11-25 (initialize + Mcp-Session-Id).
import { McpClient } from '../../dist/client/index.js';

export const name = 'agentforge';

function wrap(client) {
  return {
    pid: undefined,
    call: (name, args) => client.callTool({ name, arguments: args }),
    list: () => client.listTools(),
    close: () => client.close(),
  };
}

// `extra`: more client options (the tracing rows' middleware).
export async function connectStdio({ command, args }, extra = {}) {
  return wrap(
    await McpClient.connect(
      { command, args },
      {
        clientInfo: { name: 'bench', version: '1.0.0' },
        onstderr: (line) => process.stderr.write(`${line}\n`),
        ...extra,
      },
    ),
  );
}

export async function connectHttp(url, { mode, headers, extra = {} }) {
  const options = {
    clientInfo: { name: 'bench', version: '1.0.0' },
    ...(headers ? { headers } : {}),
    ...extra,
  };
  if (mode === 'legacy') options.protocolVersion = '2025-11-25';
  return wrap(await McpClient.connect(url, options));
}
