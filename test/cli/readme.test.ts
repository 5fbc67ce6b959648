/**
 * The README works as written. Its shell blocks run here with no API key (a block preceded by
 * `<!-- readme-test: skip (why) -->` is not run; the reason is required); the block marked
 * `<!-- readme-test: project -->` runs in a new project after a real `npm pack` of this checkout, the
 * placeholder tarball path replaced by the real one; the JSON-RPC engine snippet runs against the bundled
 * weather server.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../agent/support.js';
import { type Ran, cleanEnv } from './support.js';

interface Block {
  readonly lang: string;
  readonly code: string;
  /** The `readme-test:` marker before the block, if any. */
  readonly marker?: string;
  /** The section (`## ...`) it is in. */
  readonly section: string;
}

function blocksOf(markdown: string): Block[] {
  const blocks: Block[] = [];
  const pattern = /(?:<!-- readme-test: ([^\n]*?) -->\n)?```(\w*)\n([\s\S]*?)```/g;
  for (const match of markdown.matchAll(pattern)) {
    const before = markdown.slice(0, match.index);
    const section = [...before.matchAll(/^## (.+)$/gm)].at(-1)?.[1] ?? '';
    blocks.push({ lang: match[2]!, code: match[3]!, section, ...(match[1] ? { marker: match[1] } : {}) });
  }
  return blocks;
}

/** The commands of a block: one per line, comments and blank lines dropped. */
function commandsOf(block: Block): string[] {
  return block.code
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

function sh(command: string, cwd: string, timeout = 120_000): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-o', 'pipefail', '-c', command],
      { cwd, env: cleanEnv(), timeout },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

let readme: string;
let blocks: Block[];
let dir: string;
beforeAll(async () => {
  readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  blocks = blocksOf(readme);
  dir = await mkdtemp(join(tmpdir(), 'agentforge-readme-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the README', () => {
  it('marks every shell block it does not run, with a reason', () => {
    const shell = blocks.filter((b) => b.lang === 'sh');
    expect(shell.filter((b) => b.marker === undefined).length).toBeGreaterThan(0);
    for (const block of shell) {
      if (block.marker === undefined) continue;
      expect(block.marker).toMatch(/^(skip|project) \(.{10,}\)$/);
    }
  });

  it('runs every unmarked shell command as written, in the clone, with no API key', async () => {
    const commands = blocks.filter((b) => b.lang === 'sh' && b.marker === undefined).flatMap(commandsOf);
    expect(commands).toContain('npx agentforge tools list --config examples/mcp.json');
    for (const command of commands) {
      const ran = await sh(command, ROOT);
      expect({ command, code: ran.code, stderr: ran.code === 0 ? '' : ran.stderr }).toEqual({
        command,
        code: 0,
        stderr: '',
      });
      expect(ran.stdout.trim(), command).not.toBe('');
    }
  }, 180_000);

  it('its JSON-RPC engine snippet works against the bundled weather server', async () => {
    const snippet = blocks.find((b) => b.section === 'The JSON-RPC engine in brief' && b.lang === 'ts');
    expect(snippet).toBeDefined();
    // The snippet imports agentforge/...: a project with agentforge installed (node_modules/agentforge).
    const project = join(dir, 'snippet');
    await mkdir(join(project, 'node_modules'), { recursive: true });
    await symlink(ROOT, join(project, 'node_modules', 'agentforge'), 'dir');
    await writeFile(join(project, 'snippet.mjs'), snippet!.code);
    const ran = await sh(`node ${join(project, 'snippet.mjs')}`, ROOT);
    expect(ran).toEqual({
      code: 0,
      stdout: "weather-server [ 'get_weather' ] Hangzhou: 26°C, sunny\n",
      stderr: '',
    });
  });

  it('"use agentforge in another project": npm pack, npm install the tarball, npx agentforge', async () => {
    const version = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')).version;
    // --ignore-scripts: the suite's global setup has built dist; `prepare` rebuilding it would race other tests.
    const packed = await sh(`npm pack --ignore-scripts --silent --pack-destination ${dir}`, ROOT);
    expect(packed.code).toBe(0);
    const tarball = join(dir, packed.stdout.trim().split('\n').at(-1)!);
    expect(tarball.endsWith(`agentforge-${version}.tgz`)).toBe(true);
    const project = join(dir, 'my-server');
    await mkdir(project);
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'my-server', private: true }));
    const block = blocks.find((b) => b.marker?.startsWith('project'));
    const commands = commandsOf(block!).map((command) =>
      command.startsWith('npm install ')
        ? // Offline here: the npm cache has the dependencies.
          `${command.replace(`/path/to/agentforge-${version}.tgz`, tarball)} --prefer-offline --no-audit --no-fund`
        : command,
    );
    expect(commands[0]).toContain(tarball);
    const outputs: string[] = [];
    for (const command of commands) {
      const ran = await sh(command, project, 240_000);
      expect({ command, code: ran.code, stderr: ran.code === 0 ? '' : ran.stderr }).toMatchObject({
        code: 0,
      });
      outputs.push(ran.stdout);
    }
    expect(outputs[1]).toBe(`${version}\n`);
    expect(outputs[3]).toBe('Hello, Ada!\n');
    expect(outputs[4]).toBe('function\n');
  }, 300_000);
});
