/**
 * A stdio server's stderr is kept in a log file of its own (mcp-server-<name>.log under AGENTFORGE_LOG_DIR or
 * the user's state dir), named when the server fails, and shown live with --verbose, prefixed with its name.
 */
import { readFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, expectNoStack } from './support.js';

let dir: string;
let config: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentforge-server-logs-'));
  config = join(dir, 'mcp.json');
  const crash = "process.stderr.write('fatal: DATABASE_URL is not set\\n'); process.exit(3)";
  await writeFile(
    config,
    JSON.stringify({ mcpServers: { broken: { command: process.execPath, args: ['-e', crash] } } }),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('server stderr', () => {
  it('goes to the server log file, whose path the failure names', async () => {
    const logs = join(dir, 'logs');
    const { code, stderr } = await cli(['tools', 'list', '--config', config], {
      env: { AGENTFORGE_LOG_DIR: logs },
    });
    expect(code).toBe(1);
    expectNoStack(stderr);
    const file = join(logs, 'mcp-server-broken.log');
    expect(stderr).toContain(`its stderr is in ${file}`);
    expect(await readFile(file, 'utf8')).toMatch(
      /^\d{4}-\d\d-\d\dT[\d:.]+Z fatal: DATABASE_URL is not set$/m,
    );
  });

  it('is shown live with --verbose, prefixed with the server name', async () => {
    const logs = join(dir, 'logs-verbose');
    const { stderr } = await cli(['tools', 'list', '--config', config, '--verbose'], {
      env: { AGENTFORGE_LOG_DIR: logs },
    });
    expect(stderr).toContain('[broken] fatal: DATABASE_URL is not set');
  });
});
