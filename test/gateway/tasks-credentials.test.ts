/**
 * Tasks on a per-principal upstream whose credentials expire (an exchanged token): a caller's tasks/get after
 * the credentials lapse opens the caller's new connection with the caller's own kept token, as a tools/call
 * would, and the task the caller started is found there. The upstream is the tasks fixture over HTTP, which
 * takes the caller from the `x-test-user` header the credentials set.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TasksClient, withTasksCapability } from '../../src/extensions/tasks/index.js';
import { FIXTURES } from '../client/helpers.js';
import { type Running, startGateway, textOf, type TestIssuer, testIssuer } from './support.js';

let issuer: TestIssuer;
let upstream: ChildProcess;
let running: Running;
/** For each time the gateway opened a connection for a caller: whether it had the caller's token. */
const opened: Array<{ principal: string; withToken: boolean }> = [];

async function startUpstream(): Promise<string> {
  upstream = spawn(process.execPath, [join(FIXTURES, 'tasks-server.mjs')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  upstream.stdout?.setEncoding('utf8');
  return new Promise<string>((resolve, reject) => {
    upstream.once('exit', (code) => reject(new Error(`tasks server exited with ${code}`)));
    upstream.stdout?.on('data', (chunk: string) => {
      output += chunk;
      const match = /listening (\S+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
  });
}

const token = (subject: string) => issuer.token(subject, running.url);

beforeAll(async () => {
  issuer = await testIssuer();
  const url = await startUpstream();
  running = await startGateway(
    { jobs: { url } },
    {
      perPrincipal: ['jobs'],
      // As a token exchange does: nothing to open a caller's connection with without the caller's token, and
      // what it gives lapses soon.
      upstreamCredentials: (principal, _server, caller) => {
        opened.push({ principal, withToken: caller?.subjectToken !== undefined });
        if (caller?.subjectToken === undefined) throw new Error('no caller token to exchange');
        return { headers: { 'x-test-user': encodeURIComponent(principal) }, expiresAt: Date.now() + 300 };
      },
    },
    {
      auth: (resource) => issuer.guard(resource, { exposeToken: true }),
    },
  );
}, 60_000);

afterAll(async () => {
  await running?.[Symbol.asyncDispose]();
  if (upstream && upstream.exitCode === null) {
    upstream.kill('SIGTERM');
    await once(upstream, 'exit');
  }
});

describe('task requests on a per-principal upstream', () => {
  it("renew the caller's connection with the caller's own token once its credentials lapse", async () => {
    const alice = await running.connect({
      protocolVersion: '2026-07-28',
      capabilities: withTasksCapability({}),
      headers: { authorization: `Bearer ${await token('alice')}` },
    });
    const tasks = new TasksClient(alice, { pollIntervalMs: 100 });
    const started = await tasks.start({ name: 'jobs__render', arguments: { ms: 1200 } });
    if (!('task' in started)) throw new Error('the call did not become a task');
    const result = await tasks.wait(started.task.taskId);
    expect(textOf(result)).toBe('rendered in 1200 ms (task)');
    // Opened for the call, then again for the polls after the 300 ms credentials lapsed: each with the token.
    expect(opened.length).toBeGreaterThan(1);
    expect(opened.every((entry) => entry.withToken && entry.principal.endsWith('alice'))).toBe(true);
  }, 30_000);
});
