/**
 * Governance through the gateway, over real HTTP with real bearer tokens (JWTs signed here, verified by the
 * gateway's JwtVerifier against a key set): per-principal tool authorization in lists and calls, rate limits
 * per principal and per tool, the audit log, and per-principal upstream credentials (one upstream connection
 * per principal: A's token never reaches the upstream on B's behalf).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerAuth } from '../../src/auth/server/bearer.js';
import type { TokenVerifier } from '../../src/auth/server/types.js';
import type { McpClient } from '../../src/client/client.js';
import { RpcError } from '../../src/jsonrpc/errors.js';
import { FORBIDDEN } from '../../src/gateway/forward.js';
import { type GatewayAuditEntry, RATE_LIMITED } from '../../src/gateway/governance.js';
import type { Listening } from '../../src/server/http.js';
import { McpServer } from '../../src/server/server.js';
import { TasksClient, withTasksCapability } from '../../src/extensions/tasks/index.js';
import { FIXTURES } from '../client/helpers.js';
import { type Running, lab, startGateway, textOf, type TestIssuer, testIssuer } from './support.js';

let issuer: TestIssuer;

const token = (subject: string) => issuer.token(subject, running.url);

/** An upstream that requires its own tokens and says whose token it got. */
async function credentialedUpstream(): Promise<{ listening: Listening; seen: string[] }> {
  const tokens: Record<string, string> = { 'up-alice': 'alice', 'up-bob': 'bob', 'up-gateway': 'gateway' };
  const seen: string[] = [];
  const verifier: TokenVerifier = {
    async verify(raw) {
      const subject = tokens[raw];
      if (!subject) throw new Error('unknown token');
      seen.push(subject);
      return {
        subject,
        issuer: 'upstream',
        clientId: undefined,
        scopes: [],
        expiresAt: undefined,
        claims: {},
      };
    },
  };
  const server = new McpServer({ name: 'vault', version: '1.0.0' });
  server.registerTool('whoami', { description: 'whose upstream token this call carried' }, (_args, ctx) => ({
    content: [{ type: 'text', text: ctx.auth?.subject ?? 'nobody' }],
  }));
  const listening = await server.listen({
    auth: (url) => bearerAuth({ resource: url, authorizationServers: ['https://upstream.test'], verifier }),
  });
  return { listening, seen };
}

let running: Running;
let vault: Awaited<ReturnType<typeof credentialedUpstream>>;
const audit: GatewayAuditEntry[] = [];

beforeAll(async () => {
  issuer = await testIssuer();
  vault = await credentialedUpstream();
  running = await startGateway(
    {
      alpha: lab('alpha'),
      // The gateway's own token lists the tools; each caller's call carries the caller's token.
      vault: { url: vault.listening.url, headers: { authorization: 'Bearer up-gateway' } },
      jobs: { command: process.execPath, args: [join(FIXTURES, 'tasks-server.mjs'), '--stdio'] },
    },
    {
      policies: [
        { principals: ['alice'], tools: { allow: ['alpha__search', 'vault__*', 'jobs__render'] } },
        { principals: ['bob', 'carol'], tools: { deny: ['alpha__crash'] } },
      ],
      rateLimits: {
        principal: { capacity: 50, refillPerSecond: 0.01 },
        tools: { alpha__big: { capacity: 2, refillPerSecond: 0.01 } },
      },
      audit: (entry) => {
        audit.push(entry);
      },
      perPrincipal: ['vault'],
      upstreamCredentials: (principal) => {
        const subject = principal.split('\u0000')[1];
        return subject === 'alice' || subject === 'bob'
          ? { headers: { authorization: `Bearer up-${subject}` } }
          : undefined;
      },
    },
    {
      auth: (url) => issuer.guard(url),
    },
  );
}, 60_000);

afterAll(async () => {
  await running?.[Symbol.asyncDispose]();
  await vault?.listening.close();
});

const asWithTasks = async (subject: string): Promise<McpClient> =>
  running.connect({
    protocolVersion: '2026-07-28',
    capabilities: withTasksCapability({}),
    headers: { authorization: `Bearer ${await token(subject)}` },
  });

const as = async (subject: string): Promise<McpClient> =>
  running.connect({ headers: { authorization: `Bearer ${await token(subject)}` } });

describe('downstream auth', () => {
  it('refuses a caller without a token (401 with the resource metadata)', async () => {
    const response = await fetch(running.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/resource_metadata=/);
  });
});

describe('per-principal tool authorization', () => {
  it('lists only the tools a principal may use', async () => {
    const alice = (await (await as('alice')).listTools()).map((t) => t.name).sort();
    expect(alice).toEqual(['alpha__search', 'jobs__render', 'vault__whoami']);
    const bob = (await (await as('bob')).listTools()).map((t) => t.name);
    expect(bob).toContain('alpha__wait');
    expect(bob).not.toContain('alpha__crash');
    const mallory = await (await as('mallory')).listTools();
    expect(mallory).toEqual([]);
  });

  it('refuses a call the policy does not allow, with a clear error, and audits it', async () => {
    const alice = await as('alice');
    const error = await alice.callTool({ name: 'alpha__media', arguments: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).code).toBe(FORBIDDEN);
    expect((error as RpcError).message).toBe('not allowed to call tool alpha__media');
    expect(audit.some((e) => e.status === 'denied' && e.name === 'alpha__media')).toBe(true);
    const allowed = await alice.callTool({ name: 'alpha__search', arguments: { query: 'q' } });
    expect(textOf(allowed)).toBe('alpha found: q');
  });
});

describe('rate limits', () => {
  it('gives a rate-limited principal a clear error while others go on', async () => {
    const bob = await as('bob');
    const carol = await as('carol');
    for (let i = 0; i < 2; i++) await bob.callTool({ name: 'alpha__big', arguments: {} });
    const refused = await bob.callTool({ name: 'alpha__big', arguments: {} }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RpcError);
    expect((refused as RpcError).code).toBe(RATE_LIMITED);
    expect((refused as RpcError).message).toMatch(
      /^rate limit exceeded: too many calls of alpha__big; retry in \d+ ms$/,
    );
    // Bob's other tools, and Carol's calls of the same tool, are not affected.
    expect(textOf(await bob.callTool({ name: 'alpha__search', arguments: { query: 'still' } }))).toBe(
      'alpha found: still',
    );
    const big = await carol.callTool({ name: 'alpha__big', arguments: {} });
    expect(textOf(big)).toHaveLength(100_000);
    expect(audit.some((e) => e.status === 'rate_limited' && e.name === 'alpha__big')).toBe(true);
  });
});

describe('per-principal upstream credentials', () => {
  it("uses each principal's own upstream token, never another's", async () => {
    const [alice, bob] = await Promise.all([as('alice'), as('bob')]);
    const calls = await Promise.all(
      [alice, bob, alice, bob].map((client) => client.callTool({ name: 'vault__whoami', arguments: {} })),
    );
    expect(calls.map(textOf)).toEqual(['alice', 'bob', 'alice', 'bob']);
    // Each call was audited under its own principal.
    const audited = audit
      .filter((e) => e.name === 'vault__whoami')
      .map((e) => `${e.principal?.split('\u0000')[1]}:${e.status}`)
      .sort();
    expect(audited).toEqual(['alice:ok', 'alice:ok', 'bob:ok', 'bob:ok']);
  });

  it('refuses a principal the hook has no credentials for, without falling back to anyone else', async () => {
    const carol = await as('carol');
    const before = vault.seen.length;
    const error = await carol.callTool({ name: 'vault__whoami', arguments: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).message).toMatch(/no upstream credentials for this principal on server vault/);
    expect(vault.seen.slice(before)).toEqual([]);
  });
});

describe('tasks per principal', () => {
  it("never shows one principal's task to another", async () => {
    const [alice, bob] = await Promise.all([asWithTasks('alice'), asWithTasks('bob')]);
    const tasks = new TasksClient(alice, { pollIntervalMs: 20 });
    const started = await tasks.start({ name: 'jobs__render', arguments: { ms: 200 } });
    const taskId = 'task' in started ? started.task.taskId : '';
    expect(taskId).toMatch(/^jobs__/);
    const error = await bob.request('tasks/get', { taskId }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).message).toBe('Unknown task');
    expect(textOf(await tasks.wait(taskId))).toBe('rendered in 200 ms (task)');
  });
});
