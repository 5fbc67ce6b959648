// One side of the HTTP rows at a time, so each side's CPU per call is measured without the other's pace:
//   node bench/http-sides.mjs server <modern|legacy> <impl,impl,...> [rounds] [batch]: each implementation's
//     bench server, driven over one raw keep-alive socket that sends the bytes agentforge's client sends (the
//     driver is cheap and the same for every server, and a raw server ignores what it does not read);
//   node bench/http-sides.mjs client <modern|legacy> <impl,impl,...> [rounds] [batch]: each implementation's
//     client in this process, against its own stand-in peer (a child process answering as agentforge's server
//     does, cheap and the same for every client).
// After 4,000 warm-up calls each, the implementations take turns, `batch` calls at a time for `rounds` rounds
// (order reversed every other round), so a machine whose load drifts weighs on all of them alike. Prints
// `RESULT {"side","mode","impl","cpuUs"}` per implementation: CPU (user + system) per call of that side.
import http from 'node:http';
import net from 'node:net';
import { cpuTicks, startHttpServer, startListening, TICK_US } from './lib/proc.mjs';
import { ECHO_TEXT, echoSchema } from './lib/tools.mjs';

const [side, mode = 'modern', implsArg = 'raw,agentforge', roundsArg = '20', batchArg = '400'] =
  process.argv.slice(2);
const impls = implsArg.split(',');
const rounds = Number(roundsArg);
const batch = Number(batchArg);
const WARMUP = 4000;
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
};
const SERVER_META = { 'io.modelcontextprotocol/serverInfo': { name: 'bench-agentforge', version: '0.1.0' } };

/** One keep-alive socket; `exchange` writes a request and resolves with the response framed by Content-Length. */
async function socketTo(port) {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.setNoDelay(true);
  let buffered = Buffer.alloc(0);
  let waiting;
  const take = () => {
    const end = buffered.indexOf('\r\n\r\n');
    if (end === -1) return;
    const head = buffered.subarray(0, end).toString('latin1');
    // A chunked answer (raw's 202 to a notification) ends with its last, empty chunk.
    const chunked = /transfer-encoding: chunked/i.test(head);
    const last = chunked ? buffered.indexOf('0\r\n\r\n', end + 4) : -1;
    if (chunked && last === -1) return;
    const length = chunked ? last + 5 - (end + 4) : Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
    if (buffered.length < end + 4 + length) return;
    const body = buffered.subarray(end + 4, end + 4 + length).toString('utf8');
    buffered = buffered.subarray(end + 4 + length);
    const resolve = waiting;
    waiting = undefined;
    resolve({ head, body });
  };
  socket.on('data', (chunk) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    if (waiting) take();
  });
  return {
    exchange: (text) =>
      new Promise((resolve) => {
        waiting = resolve;
        socket.write(text);
      }),
    close: () => socket.destroy(),
  };
}

function post(port, headers, body) {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `POST /mcp HTTP/1.1\r\n${lines.join('')}content-length: ${Buffer.byteLength(body)}\r\nhost: 127.0.0.1:${port}\r\nConnection: keep-alive\r\n\r\n${body}`;
}

/** One implementation's server, ready to be called; `cpu()` reads its process's CPU in microseconds. */
async function serverSide(impl) {
  const server = await startHttpServer(impl, ['--transport=http', `--mode=${mode}`]);
  const port = Number(new URL(server.url).port);
  const peer = await socketTo(port);
  const base = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
  let headers;
  let params = { name: 'echo', arguments: { text: ECHO_TEXT } };
  if (mode === 'modern') {
    headers = {
      ...base,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'echo',
    };
    params = { ...params, _meta: META };
  } else {
    const init = {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'bench', version: '1' },
    };
    const initBody = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: init });
    const { head } = await peer.exchange(post(port, base, initBody));
    const session = /mcp-session-id: (\S+)/i.exec(head)?.[1];
    headers = {
      ...base,
      'mcp-protocol-version': '2025-11-25',
      ...(session ? { 'mcp-session-id': session } : {}),
    };
    await peer.exchange(post(port, headers, '{"jsonrpc":"2.0","method":"notifications/initialized"}'));
  }
  let id = 1;
  const call = () =>
    peer.exchange(
      post(port, headers, JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'tools/call', params })),
    );
  const first = await call();
  if (!first.body.includes(ECHO_TEXT))
    throw new Error(`${impl}: unexpected answer: ${first.head}\n${first.body}`);
  return {
    impl,
    call,
    cpu: () => cpuTicks(server.child.pid) * TICK_US,
    close: async () => {
      peer.close();
      await server.stop();
    },
  };
}

/** The stand-in server for the client side: agentforge's answers, built per request from its body. */
function servePeer() {
  const session = 'bench-session';
  const answer = (res, status, value, headers = {}) => {
    const text = value === undefined ? '' : JSON.stringify(value);
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      ...headers,
    });
    res.end(text);
  };
  const result = (message, value) => ({ jsonrpc: '2.0', id: message.id, result: value });
  const modern = (value) => ({ ...value, resultType: 'complete', _meta: SERVER_META });
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method !== 'POST') return answer(res, req.method === 'DELETE' ? 200 : 405, undefined);
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const legacy = mode === 'legacy' ? { 'mcp-session-id': session } : {};
      if (message.id === undefined) return answer(res, 202, undefined, legacy);
      switch (message.method) {
        case 'initialize':
          return answer(
            res,
            200,
            result(message, {
              protocolVersion: message.params.protocolVersion,
              capabilities: { tools: {} },
              serverInfo: SERVER_META['io.modelcontextprotocol/serverInfo'],
            }),
            legacy,
          );
        case 'server/discover':
          return answer(
            res,
            200,
            result(message, modern({ supportedVersions: ['2026-07-28'], capabilities: { tools: {} } })),
          );
        case 'tools/list': {
          const tools = [{ name: 'echo', inputSchema: echoSchema }];
          return answer(res, 200, result(message, mode === 'modern' ? modern({ tools }) : { tools }), legacy);
        }
        default: {
          const content = [{ type: 'text', text: message.params.arguments.text }];
          return answer(
            res,
            200,
            result(message, mode === 'modern' ? modern({ content }) : { content }),
            legacy,
          );
        }
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => console.log(`LISTENING ${server.address().port}`));
}

/** One implementation's client in this process, against a stand-in peer of its own. */
async function clientSide(impl) {
  const { child: peer, url } = await startListening(process.execPath, [process.argv[1], 'peer', mode]);
  const client = await (await import(`./clients/${impl}.mjs`)).connectHttp(url, { mode });
  const args = { text: ECHO_TEXT };
  const first = await client.call('echo', args);
  if (first?.content?.[0]?.text !== ECHO_TEXT)
    throw new Error(`${impl}: unexpected result: ${JSON.stringify(first)}`);
  return {
    impl,
    call: () => client.call('echo', args),
    cpu: () => {
      const used = process.cpuUsage();
      return used.user + used.system;
    },
    close: async () => {
      await client.close();
      peer.kill();
    },
  };
}

/** Warm-up, then turns of `batch` calls each; CPU per call of each side over its own turns. */
async function interleave(sides) {
  for (let done = 0; done < WARMUP; done += 200)
    for (const one of sides) for (let i = 0; i < 200; i++) await one.call();
  const used = new Map(sides.map((one) => [one, 0]));
  for (let round = 0; round < rounds; round++) {
    for (const one of round % 2 ? [...sides].reverse() : sides) {
      const before = one.cpu();
      for (let i = 0; i < batch; i++) await one.call();
      used.set(one, used.get(one) + one.cpu() - before);
    }
  }
  return sides.map((one) => ({ impl: one.impl, cpuUs: used.get(one) / (rounds * batch) }));
}

if (side === 'peer') servePeer();
else {
  const sides = [];
  try {
    for (const impl of impls) sides.push(await (side === 'server' ? serverSide(impl) : clientSide(impl)));
    for (const { impl, cpuUs } of await interleave(sides))
      console.log(`RESULT ${JSON.stringify({ side, mode, impl, cpuUs })}`);
  } finally {
    for (const one of sides) await one.close();
  }
  process.exit(0);
}
