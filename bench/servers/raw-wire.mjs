// The raw lower bound's stdio server (bench/servers/raw.mjs, same framing and handler) answering with the
// bytes of a 2026-07-28 result: every result carries its `resultType` and the serverInfo `_meta` agentforge's
// server sends, serialised whole with the message, one JSON.stringify. Requests are read as raw reads them
// (their `_meta` parsed with the rest, not checked).
import { parseServerArgs } from '../lib/tools.mjs';
import { lineWriter, onLines } from '../lib/lines.mjs';
import { createRawHandler, respond } from './raw-handler.mjs';

const opts = parseServerArgs();
if (opts.transport !== 'stdio') throw new Error('raw-wire serves stdio only');
const handle = createRawHandler(opts);
const META = { 'io.modelcontextprotocol/serverInfo': { name: 'bench-raw-wire', version: '0.1.0' } };

// Every result the handler returns is a new object: the members go on it.
function withWire(result) {
  if (result === undefined) return undefined;
  result.resultType = 'complete';
  result._meta = META;
  return result;
}

const send = lineWriter(process.stdout);
process.stdin.setEncoding('utf8');
onLines(process.stdin, (msg) => {
  if (msg.id === undefined) return;
  const result = handle(msg);
  if (result instanceof Promise) result.then((r) => send(respond(msg, withWire(r))));
  else send(respond(msg, withWire(result)));
});
process.stdin.on('end', () => process.exit(0));
