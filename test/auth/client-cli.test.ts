/**
 * `agentforge auth login|status|logout` as users run it (dist/cli/main.js): login prints the authorization URL
 * (--no-browser), the test plays the browser, the CLI's loopback listener receives the redirect; the token lands
 * in a 0600 file under XDG_CONFIG_HOME and is never printed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './harness.js';

const MAIN = join(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js');
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function run(
  args: string[],
  env: NodeJS.ProcessEnv,
): { child: ChildProcess; done: Promise<{ code: number; out: string; err: string }> } {
  const child = spawn(process.execPath, [MAIN, ...args], { env: { ...process.env, ...env }, stdio: 'pipe' });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    err += chunk;
  });
  const done = new Promise<{ code: number; out: string; err: string }>((resolve) =>
    child.on('close', (code) => resolve({ code: code ?? -1, out, err })),
  );
  return { child, done };
}

async function authorizationUrlFrom(child: ChildProcess): Promise<URL> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`no URL printed: ${text}`)), 10_000);
    child.stderr?.on('data', (chunk) => {
      text += chunk;
      const match = /(http:\/\/127\.0\.0\.1:\d+\/authorize\S*)/.exec(text);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(new URL(match[1]));
      }
    });
  });
}

describe('agentforge auth', () => {
  it('logs in through the loopback redirect, reports status without the token, and logs out', async () => {
    const h: Harness = await startHarness({});
    cleanups.push(() => h.close());
    const dir = await mkdtemp(join(tmpdir(), 'agentforge-auth-cli-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const config = join(dir, 'mcp.json');
    await writeFile(
      config,
      JSON.stringify({ mcpServers: { protected: { url: h.mcpUrl, oauth: { scopes: ['mcp'] } } } }),
    );
    const env = { XDG_CONFIG_HOME: dir };

    const login = run(['auth', 'login', 'protected', '--config', config, '--no-browser'], env);
    const url = await authorizationUrlFrom(login.child);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    const approved = await fetch(url, { redirect: 'manual' });
    const callback = approved.headers.get('location') ?? '';
    expect(callback).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/);
    expect((await fetch(callback)).status).toBe(200);
    const loggedIn = await login.done;
    expect(loggedIn.code).toBe(0);
    expect(loggedIn.out).toContain(`logged in at ${h.base}`);
    const tokenFile = join(dir, 'agentforge', 'tokens.json');
    expect((await stat(tokenFile)).mode & 0o777).toBe(0o600);

    const status = await run(['auth', 'status', 'protected', '--config', config], env).done;
    expect(status.code).toBe(0);
    expect(status.out).toContain('scope: mcp');
    const [token] = [...h.tokens.keys()];
    expect(`${status.out}${status.err}${loggedIn.out}${loggedIn.err}`).not.toContain(token);

    expect((await run(['auth', 'logout', 'protected', '--config', config], env).done).code).toBe(0);
    const after = await run(['auth', 'status', 'protected', '--config', config], env).done;
    expect(after.code).toBe(1);
    expect(after.out).toContain('not logged in');
  });
});
