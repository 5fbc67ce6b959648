// Serves an example server the way its command line asks: stdio by default (the host spawns it), or
// Streamable HTTP with `--http [--port N]` (N = 0 picks a free port). In HTTP mode the endpoint URL is
// printed on stdout as one JSON line, `{"url": "http://127.0.0.1:PORT/mcp"}`, for whoever started it.
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { listen } from 'agentforge/server';

export async function serve(server) {
  const { values } = parseArgs({
    options: { http: { type: 'boolean', default: false }, port: { type: 'string', default: '0' } },
    strict: false,
  });
  if (!values.http) {
    await server.serveStdio();
    return;
  }
  const listening = await listen(server, { port: Number(values.port) });
  process.stdout.write(`${JSON.stringify({ url: listening.url })}\n`);
  const stop = async () => {
    await listening.close();
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

/** True when the module at `url` is the script node was started with (not imported by a test or the demo). */
export function isMain(url) {
  return process.argv[1] !== undefined && url === pathToFileURL(realpathSync(process.argv[1])).href;
}
