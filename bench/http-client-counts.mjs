// The HTTP client side counted per call, in figures that do not depend on the machine's load:
// `node bench/http-client-counts.mjs <modern|legacy> <impl,impl,...> [calls]` runs each implementation's
// client in this process against bench/http-sides.mjs's stand-in peer and prints, per tools/call:
// - promises created (an async_hooks PROMISE init counter; the hook turns off V8's await shortcut, so the
//   real count is somewhat lower, but the comparison holds) and promise reactions run (`before` callbacks);
// - process.nextTick calls, listeners added (EventEmitter on/once/prepend), timers created;
// - bytes allocated (the sampling heap profiler with collected objects included, 128 B interval).
import { createHook } from 'node:async_hooks';
import { bytesAllocated } from './lib/counting.mjs';
import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import { startListening } from './lib/proc.mjs';
import { ECHO_TEXT } from './lib/tools.mjs';

const [mode = 'modern', implsArg = 'raw,agentforge', callsArg = '2000'] = process.argv.slice(2);
const CALLS = Number(callsArg);
const sides = fileURLToPath(new URL('./http-sides.mjs', import.meta.url));

async function peer() {
  const { child, url } = await startListening(process.execPath, [sides, 'peer', mode]);
  return { url, kill: () => child.kill() };
}

const counts = { ticks: 0, listeners: 0, timers: 0, promises: 0, reactions: 0 };
let counting = false;
const nextTick = process.nextTick;
process.nextTick = function (...args) {
  if (counting) counts.ticks++;
  return nextTick.apply(this, args);
};
for (const name of ['on', 'addListener', 'once', 'prependListener', 'prependOnceListener']) {
  const original = EventEmitter.prototype[name];
  EventEmitter.prototype[name] = function (...args) {
    if (counting) counts.listeners++;
    return original.apply(this, args);
  };
}
const setTimeoutOriginal = globalThis.setTimeout;
globalThis.setTimeout = function (...args) {
  if (counting) counts.timers++;
  return setTimeoutOriginal.apply(this, args);
};
const hook = createHook({
  init(_id, type) {
    if (counting && type === 'PROMISE') counts.promises++;
  },
  before() {
    if (counting) counts.reactions++;
  },
});

async function measure(impl) {
  const server = await peer();
  const client = await (await import(`./clients/${impl}.mjs`)).connectHttp(server.url, { mode });
  const args = { text: ECHO_TEXT };
  const call = async () => {
    const result = await client.call('echo', args);
    if (result?.content?.[0]?.text !== ECHO_TEXT) throw new Error(`${impl}: ${JSON.stringify(result)}`);
  };
  for (let i = 0; i < 2000; i++) await call();
  for (const key in counts) counts[key] = 0;
  hook.enable();
  counting = true;
  for (let i = 0; i < CALLS; i++) await call();
  counting = false;
  hook.disable();
  const perCall = Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, v / CALLS]));
  const bytes = await bytesAllocated(async () => {
    for (let i = 0; i < CALLS; i++) await call();
  }, 128);
  perCall.bytes = Math.round(bytes / CALLS);
  await client.close();
  server.kill();
  return perCall;
}

for (const impl of implsArg.split(','))
  console.log(`RESULT ${JSON.stringify({ mode, impl, ...(await measure(impl)) })}`);
process.exit(0);
