/**
 * A handler's result that JSON cannot express (here nested 20,000 levels deep) fails that one call with an
 * internal error; the server process keeps serving the next call, over stdio and HTTP, in both eras.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { McpClient } from '../../src/client/index.js';
import { RpcError } from '../../src/jsonrpc/errors.js';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'deep-result-server.mjs');
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

async function httpFixture(): Promise<string> {
  const child = spawn(process.execPath, [FIXTURE, '--http'], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout?.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8')));
    child.once('exit', (code) => reject(new Error(`fixture exited with ${code}`)));
  });
  return (JSON.parse(line) as { url: string }).url;
}

describe.each(['2026-07-28', '2025-11-25'])('an unserialisable result at %s', (protocolVersion) => {
  it.each(['stdio', 'http'])('over %s fails that call only', async (transport) => {
    const target =
      transport === 'stdio' ? { command: process.execPath, args: [FIXTURE] } : await httpFixture();
    await using client = await McpClient.connect(target, { protocolVersion, cache: false });
    const failed = await client.callTool({ name: 'deep' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(RpcError);
    expect((failed as RpcError).code).toBe(-32603);
    expect((failed as RpcError).message).toMatch(/could not be serialised/);
    const next = await client.callTool({ name: 'fine' });
    expect(next.content).toEqual([{ type: 'text', text: 'fine' }]);
  });
});
