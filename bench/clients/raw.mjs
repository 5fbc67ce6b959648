// The raw lower bound's client: newline JSON over a child's pipes (bench/lib/lines.mjs: one JSON.parse per
// line, one write per event-loop turn or 8 KiB), and node:http with a keep-alive agent.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { lineWriter, onLines } from '../lib/lines.mjs';

export const name = 'raw';

export async function connectStdio(target) {
  return connectStdioWith(target, undefined);
}

/**
 * The raw client's stdio half over any pair of streams: requests to `writable`, answers read from `readable`
 * (utf8-decoded). `meta`: the `_meta` put in every request's params (bench/clients/raw-wire.mjs), serialised
 * with the rest.
 */
export function rawStdioClient(writable, readable, meta) {
  const pending = new Map();
  let nextId = 1;
  const send = lineWriter(writable);
  onLines(readable, (msg) => {
    const resolve = pending.get(msg.id);
    pending.delete(msg.id);
    resolve?.(msg.result);
  });
  const request = (method, params) =>
    new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  return {
    call:
      meta === undefined
        ? (name, args) => request('tools/call', { name, arguments: args })
        : (name, args) => request('tools/call', { name, arguments: args, _meta: meta }),
    list: async () => (await request('tools/list', meta === undefined ? {} : { _meta: meta })).tools,
  };
}

export async function connectStdioWith({ command, args }, meta) {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdout.setEncoding('utf8');
  const { call, list } = rawStdioClient(child.stdin, child.stdout, meta);
  return {
    pid: child.pid,
    call,
    list,
    close: async () => {
      child.stdin.end();
      await new Promise((r) => (child.exitCode === null ? child.once('exit', r) : r()));
    },
  };
}

export async function connectHttp(url) {
  const agent = new http.Agent({ keepAlive: true });
  const { hostname, port, pathname } = new URL(url);
  let nextId = 1;
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params });
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
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')).result));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  return {
    call: (name, args) => request('tools/call', { name, arguments: args }),
    list: async () => (await request('tools/list', {})).tools,
    close: async () => agent.destroy(),
  };
}
