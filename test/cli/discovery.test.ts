// biome-ignore-all lint/suspicious/noTemplateCurlyInString: mcp.json uses ${input:...}, tested verbatim.
/**
 * Which config a command uses without --config (./mcp.json, ./.mcp.json, ./.vscode/mcp.json, then the user's
 * agentforge config), `config import` from Claude Desktop and Cursor, `./` paths relative to the config file,
 * and VS Code `${input:...}` values (asked on a terminal, a clear failure without one).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAB, ROOT, WEATHER } from '../agent/support.js';
import { MAIN, cli } from './support.js';

let dir: string;
let home: string;
let env: Record<string, string>;
let n = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentforge-discovery-'));
  home = join(dir, 'home');
  await mkdir(home);
  env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config') };
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function put(path: string, value: unknown): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
}

async function project(): Promise<string> {
  const path = join(dir, `project-${++n}`);
  await mkdir(path);
  return path;
}

const weather = { command: process.execPath, args: [WEATHER] };
const userConfig = () => join(home, '.config', 'agentforge', 'mcp.json');

describe('config discovery', () => {
  it('no config anywhere: exit 2 naming every place searched, init config and config import', async () => {
    const cwd = await project();
    const { code, stderr } = await cli(['tools', 'list'], { cwd, env });
    expect(code).toBe(2);
    for (const place of [
      join(cwd, 'mcp.json'),
      join(cwd, '.mcp.json'),
      join(cwd, '.vscode', 'mcp.json'),
      userConfig(),
    ])
      expect(stderr).toContain(place);
    expect(stderr).toContain('agentforge init config');
    expect(stderr).toContain('agentforge config import');
  });

  it('VS Code\'s .vscode/mcp.json ("servers", "type": "stdio") is found and used', async () => {
    const cwd = await project();
    await put(join(cwd, '.vscode', 'mcp.json'), { servers: { weather: { type: 'stdio', ...weather } } });
    const { code, stdout } = await cli(['tools', 'list'], { cwd, env });
    expect(code).toBe(0);
    expect(stdout).toMatch(/^weather__get_weather\tweather\/get_weather\t/);
  });

  it('searches ./mcp.json, ./.mcp.json, ./.vscode/mcp.json, then the user config, in that order', async () => {
    const cwd = await project();
    const files = [
      join(cwd, 'mcp.json'),
      join(cwd, '.mcp.json'),
      join(cwd, '.vscode', 'mcp.json'),
      userConfig(),
    ];
    for (const file of files) await put(file, { mcpServers: {} });
    for (const file of files) {
      const { code, stdout } = await cli(['config', 'path'], { cwd, env });
      expect({ code, stdout }).toEqual({ code: 0, stdout: `${file}\n` });
      await rm(file);
    }
  });
});

describe('relative paths and inputs', () => {
  it('"./" in command and args resolves against the config file, whatever the working directory', async () => {
    const where = await project();
    await put(
      join(where, 'tools', 'server.mjs'),
      `import { McpServer } from ${JSON.stringify(join(ROOT, 'dist/server/index.js'))};
const server = new McpServer({ name: 'here', version: '1.0.0' });
server.registerTool('where', { description: 'Where it runs' }, () => ({ content: [{ type: 'text', text: 'here' }] }));
await server.serveStdio();
`,
    );
    const config = await put(join(where, 'mcp.json'), {
      mcpServers: { rel: { command: process.execPath, args: ['./tools/server.mjs'] } },
    });
    const { code, stdout, stderr } = await cli(['tools', 'call', 'rel__where', '--config', config], {
      cwd: ROOT,
    });
    expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: 'here\n', stderr: '' });
  });

  it('${input:...} without a terminal: a clear failure naming the input', async () => {
    const config = await put(join(await project(), 'mcp.json'), {
      inputs: [{ id: 'label', type: 'promptString', description: 'Lab label', password: true }],
      servers: { lab: { command: process.execPath, args: [LAB, '${input:label}'] } },
    });
    const { code, stderr } = await cli(['tools', 'list', '--config', config], { env });
    expect(code).toBe(1);
    expect(stderr).toBe(
      `agentforge: ${config}, key "inputs": "label" must be typed in, and there is no terminal to ask\n`,
    );
  });

  it.skipIf(!hasTmux())(
    '${input:...} on a terminal: asked for (a password is not echoed) and used',
    async () => {
      const config = await put(join(await project(), 'mcp.json'), {
        inputs: [{ id: 'label', type: 'promptString', description: 'Lab label', password: true }],
        servers: { lab: { command: process.execPath, args: [LAB, '${input:label}'] } },
      });
      const out = join(dir, 'input-out.txt');
      const status = join(dir, 'input-status.txt');
      const session = `agentforge-input-${process.pid}`;
      const command = `${process.execPath} ${MAIN} resources read lab://notes/today --config ${config} > ${out}; echo $? > ${status}`;
      execFileSync('tmux', ['new-session', '-d', '-s', session, '-x', '120', '-y', '20', command]);
      try {
        // capture-pane trims the prompt's trailing space.
        await until(() => pane(session).includes('Lab label:'));
        execFileSync('tmux', ['send-keys', '-t', session, 'sekrit']);
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(pane(session)).not.toContain('sekrit');
        execFileSync('tmux', ['send-keys', '-t', session, 'Enter']);
        await until(() => existsSync(status) && readFileSync(status, 'utf8').trim() !== '');
        expect(readFileSync(status, 'utf8').trim()).toBe('0');
        expect(readFileSync(out, 'utf8')).toBe('sekrit notes\n');
      } finally {
        try {
          execFileSync('tmux', ['kill-session', '-t', session], { stdio: 'ignore' });
        } catch {
          // ended with its command
        }
      }
    },
  );
});

describe.skipIf(!hasTmux())('an ${input:...} question and Ctrl-C', () => {
  it('Ctrl-C at the question exits 130 at once, before any server starts', async () => {
    const config = await put(join(await project(), 'mcp.json'), {
      inputs: [{ id: 'token', type: 'promptString', description: 'API token' }],
      servers: { lab: { command: process.execPath, args: [LAB, '${input:token}'] } },
    });
    const status = join(dir, 'ctrl-c-status.txt');
    const session = `agentforge-input-c-${process.pid}`;
    const command = `${process.execPath} ${MAIN} tools list --config ${config}; echo $? > ${status}`;
    execFileSync('tmux', ['new-session', '-d', '-s', session, '-x', '120', '-y', '20', command]);
    try {
      await until(() => pane(session).includes('API token:'));
      execFileSync('tmux', ['send-keys', '-t', session, 'C-c']);
      await until(() => existsSync(status) && readFileSync(status, 'utf8').trim() !== '', 10_000);
      expect(readFileSync(status, 'utf8').trim()).toBe('130');
    } finally {
      try {
        execFileSync('tmux', ['kill-session', '-t', session], { stdio: 'ignore' });
      } catch {
        // ended with its command
      }
    }
  });
});

describe('agentforge config import', () => {
  it("merges Claude Desktop's and Cursor's servers, keeps existing ones unless --force, keeps other keys", async () => {
    const claude = {
      mcpServers: { fs: { command: 'npx', args: ['fs-server'] }, weather: { command: 'claude-w' } },
    };
    await put(join(home, '.config', 'Claude', 'claude_desktop_config.json'), claude);
    await put(join(home, '.cursor', 'mcp.json'), { mcpServers: { git: { url: 'http://127.0.0.1:9/mcp' } } });
    await put(userConfig(), { inputs: [], mcpServers: { weather } });
    const first = await cli(['config', 'import'], { env, cwd: await project() });
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(`2 servers imported into ${userConfig()}\n`);
    expect(first.stderr).toContain(
      'kept the existing "weather" (Claude Desktop has one too; --force replaces it)',
    );
    const merged = JSON.parse(await readFile(userConfig(), 'utf8'));
    expect(merged).toEqual({
      inputs: [],
      mcpServers: { weather, fs: claude.mcpServers.fs, git: { url: 'http://127.0.0.1:9/mcp' } },
    });
    expect((await stat(userConfig())).mode & 0o777).toBe(0o600);
    const forced = await cli(['config', 'import', '--from', 'claude', '--force'], { env });
    expect(forced.code).toBe(0);
    expect(JSON.parse(await readFile(userConfig(), 'utf8')).mcpServers.weather).toEqual({
      command: 'claude-w',
    });
  });

  it('nothing to import: exit 1 naming the files looked for', async () => {
    const empty = join(dir, 'empty-home');
    await mkdir(empty);
    const { code, stderr } = await cli(['config', 'import'], {
      env: { HOME: empty, XDG_CONFIG_HOME: join(empty, 'x') },
    });
    expect(code).toBe(1);
    expect(stderr).toContain(`Claude Desktop: ${join(empty, 'x', 'Claude', 'claude_desktop_config.json')}`);
    expect(stderr).toContain(`Cursor: ${join(empty, '.cursor', 'mcp.json')}`);
  });
});

function hasTmux(): boolean {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function pane(session: string): string {
  try {
    return execFileSync('tmux', ['capture-pane', '-p', '-t', session], { encoding: 'utf8' });
  } catch {
    return '';
  }
}

async function until(check: () => boolean, ms = 20_000, what = () => ''): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
