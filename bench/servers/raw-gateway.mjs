// The raw floor under the gateway rows: a hand-written JSON-RPC forwarder, the least a process between an
// HTTP caller and an MCP server can do. A node:http keep-alive server parses each POSTed body once (to learn
// whether it is a request and, on stdio, its id) and forwards it:
// - `--upstream=<url>`: the body's bytes as they came, one POST on a keep-alive http.Agent; the upstream's
//   answer bytes are written back unparsed (status and content-type kept).
// - `--upstream=stdio`: the raw bench server spawned as a child, newline JSON on its stdin (bench/lib/lines.mjs:
//   one write per event-loop turn); the request gets the forwarder's own id (callers' ids may collide on one
//   pipe), and the answer, parsed once by the line reader, goes back with the caller's id.
// It does none of what the gateway does: no authentication, no tool namespacing or registry, no policy or rate
// limits, no validation of the message or the answer, no size caps, no protocol handshake or sessions.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { lineWriter, onLines } from '../lib/lines.mjs';
import { serverCommand } from '../lib/proc.mjs';
import { announcePort } from '../lib/tools.mjs';

process.once('SIGTERM', () => process.exit(0));
const upstream = process.argv.find((a) => a.startsWith('--upstream='))?.slice('--upstream='.length);
const forward = upstream === 'stdio' ? stdioUpstream() : httpUpstream(upstream);

function httpUpstream(url) {
  const agent = new http.Agent({ keepAlive: true });
  const { hostname, port, pathname } = new URL(url);
  return (_msg, body, res) => {
    const req = http.request(
      {
        agent,
        hostname,
        port,
        path: pathname,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': body.length,
        },
      },
      (answer) => {
        const chunks = [];
        answer.on('data', (c) => chunks.push(c));
        answer.on('end', () => {
          const out = Buffer.concat(chunks);
          const type = answer.headers['content-type'];
          res.writeHead(answer.statusCode, {
            ...(type ? { 'content-type': type } : {}),
            'content-length': out.length,
          });
          res.end(out);
        });
      },
    );
    req.on('error', () => res.writeHead(502).end());
    req.end(body);
  };
}

function stdioUpstream() {
  const { command, args } = serverCommand('raw', ['--transport=stdio', '--minimal']);
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const pending = new Map();
  let nextId = 1;
  const send = lineWriter(child.stdin);
  child.stdout.setEncoding('utf8');
  onLines(child.stdout, (answer) => {
    const waiting = pending.get(answer.id);
    if (!waiting) return;
    pending.delete(answer.id);
    answer.id = waiting.id;
    const out = JSON.stringify(answer);
    waiting.res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(out),
    });
    waiting.res.end(out);
  });
  return (msg, _body, res) => {
    if (msg.id === undefined) {
      send(JSON.stringify(msg));
      res.writeHead(202).end();
      return;
    }
    const id = nextId++;
    pending.set(id, { id: msg.id, res });
    msg.id = id;
    send(JSON.stringify(msg));
  };
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    forward(JSON.parse(body.toString('utf8')), body, res);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => announcePort(server));
