import http from 'node:http';
// The raw lower bound's request handler: no validation, no framework; the tool list is kept as plain
// objects and serialized on each response like any server must.
import {
  count,
  echoSchema,
  fillerDescription,
  fillerName,
  fillerSchema,
  hold,
  orderSchema,
  release,
  textResult,
} from '../lib/tools.mjs';

export function createRawHandler(opts) {
  const tools = [{ name: 'echo', description: 'Echo the text back', inputSchema: echoSchema }];
  if (!opts.minimal) {
    tools.push({ name: 'order', description: 'Validate an order', inputSchema: orderSchema });
    for (const name of ['hold', 'release', 'count']) tools.push({ name, inputSchema: { type: 'object' } });
  }
  for (let i = 0; i < opts.tools; i++) {
    tools.push({ name: fillerName(i), description: fillerDescription(i), inputSchema: fillerSchema });
  }
  const calls = {
    echo: (a) => textResult(a.text),
    order: (a) => textResult(String(a.items.length)),
    hold: () => hold(),
    release: () => release(),
    count: (a) => count(a),
  };
  // Returns the result object, or a promise of it for held calls.
  return function handle(msg) {
    switch (msg.method) {
      case 'initialize':
        return {
          protocolVersion: msg.params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: 'raw', version: '0' },
        };
      case 'tools/list':
        return { tools };
      case 'tools/call': {
        const fn = calls[msg.params.name];
        return fn ? fn(msg.params.arguments) : textResult(msg.params.arguments.a);
      }
      case 'ping':
        return {};
      default:
        return undefined; // method not found
    }
  };
}

export function respond(msg, result) {
  if (result === undefined) {
    const error = { code: -32601, message: `Method not found: ${msg.method}` };
    return JSON.stringify({ jsonrpc: '2.0', id: msg.id, error });
  }
  return JSON.stringify({ jsonrpc: '2.0', id: msg.id, result });
}

/** The raw HTTP server: a minimal node:http JSON-RPC endpoint, one POST per message, a JSON answer. */
export function createRawHttpServer(handle) {
  return http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (msg.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      const body = respond(msg, await handle(msg));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
}
