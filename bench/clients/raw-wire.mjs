// The raw lower bound's stdio client (bench/clients/raw.mjs, same framing and code) sending the bytes of a
// 2026-07-28 request: every request's params carry the `_meta` the revision asks of each request (its
// protocol version and the client's capabilities, both required, and its clientInfo, which clients SHOULD
// send), the same members agentforge's client sends. Serialised whole with the message, one JSON.stringify.
import { connectStdioWith } from './raw.mjs';

export const name = 'raw-wire';

export const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
};

export function connectStdio(target) {
  return connectStdioWith(target, META);
}
