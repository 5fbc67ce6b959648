// The raw lower bound: newline-delimited JSON-RPC over a pipe (bench/lib/lines.mjs: one JSON.parse per line,
// one write per event-loop turn or 8 KiB), or a minimal node:http JSON-RPC server with keep-alive.
import { announcePort, parseServerArgs } from '../lib/tools.mjs';
import { lineWriter, onLines } from '../lib/lines.mjs';
import { createRawHandler, createRawHttpServer, respond } from './raw-handler.mjs';

const opts = parseServerArgs();
const handle = createRawHandler(opts);

if (opts.transport === 'stdio') {
  const send = lineWriter(process.stdout);
  process.stdin.setEncoding('utf8');
  onLines(process.stdin, (msg) => {
    if (msg.id === undefined) return;
    const result = handle(msg);
    if (result instanceof Promise) result.then((r) => send(respond(msg, r)));
    else send(respond(msg, result));
  });
  process.stdin.on('end', () => process.exit(0));
} else {
  const server = createRawHttpServer(handle);
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => announcePort(server));
}
