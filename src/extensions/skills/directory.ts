/**
 * Reads one skill directory into memory (SEP-2640 Skill Format): SKILL.md and every file beneath it, each with
 * its digest and size. What is served afterwards is exactly these bytes, looked up by exact URI, so no request
 * can reach a path on disk: not `..`, not an encoded `%2e%2e`, not a symlink pointing out of the directory
 * (those are left out when the skill is read).
 */
import { lstat, readFile, readdir, realpath } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import type { JSONObject } from '../../mcp/types.js';
import {
  MAX_SKILL_BYTES,
  MAX_SKILL_RESOURCES,
  SKILL_FILE,
  type SkillEntry,
  digestOf,
  isPrefixSegment,
  isSkillName,
  parseFrontmatter,
} from './wire.js';

export interface SkillFile {
  readonly uri: string;
  /** Path relative to the skill root, `/`-separated. */
  readonly path: string;
  readonly bytes: Uint8Array;
  readonly digest: string;
  readonly mimeType: string;
}

export interface LoadedSkill {
  readonly entry: SkillEntry;
  readonly name: string;
  readonly description: string;
  readonly files: ReadonlyMap<string, SkillFile>;
}

const MIME_TYPES: Record<string, string> = {
  md: 'text/markdown',
  txt: 'text/plain',
  py: 'text/x-python',
  js: 'text/javascript',
  ts: 'text/typescript',
  sh: 'text/x-shellscript',
  json: 'application/json',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  html: 'text/html',
  csv: 'text/csv',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
};

function mimeTypeOf(path: string): string {
  const dot = path.lastIndexOf('.');
  return (dot >= 0 && MIME_TYPES[path.slice(dot + 1).toLowerCase()]) || 'application/octet-stream';
}

/** Files under `root`, as paths relative to it; symlinks only when they resolve inside `root`. */
async function walk(root: string, realRoot: string, dir = root): Promise<string[]> {
  const found: string[] = [];
  for (const dirent of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, dirent.name);
    const info = await lstat(path);
    if (info.isSymbolicLink()) {
      const target = await realpath(path).catch(() => undefined);
      // Followed only when it stays inside the skill; a symlinked directory is not descended (no loops).
      if (!target || !(target === realRoot || target.startsWith(realRoot + sep))) continue;
      const targetInfo = await lstat(target);
      if (targetInfo.isFile()) found.push(relative(root, path));
      continue;
    }
    if (info.isDirectory()) found.push(...(await walk(root, realRoot, path)));
    else if (info.isFile()) found.push(relative(root, path));
    if (found.length > MAX_SKILL_RESOURCES)
      throw new RangeError(`skill ${root} has more than ${MAX_SKILL_RESOURCES} files`);
  }
  return found;
}

function uriOf(base: string, path: string): string {
  return `${base}/${path.split('/').map(encodeURIComponent).join('/')}`;
}

/** Reads the skill at `dir`, served under `skill://<prefix>/<name>`. */
export async function loadSkillDirectory(dir: string, prefix: readonly string[] = []): Promise<LoadedSkill> {
  for (const segment of prefix)
    if (!isPrefixSegment(segment))
      throw new RangeError(`invalid skill path segment: ${JSON.stringify(segment)}`);
  const realRoot = await realpath(dir);
  const read: Array<{ path: string; bytes: Uint8Array }> = [];
  let total = 0;
  for (const path of (await walk(realRoot, realRoot)).sort()) {
    const bytes = new Uint8Array(await readFile(join(realRoot, path)));
    total += bytes.byteLength;
    if (total > MAX_SKILL_BYTES) throw new RangeError(`skill ${dir} exceeds ${MAX_SKILL_BYTES} bytes`);
    read.push({ path: path.split(sep).join('/'), bytes });
  }
  // SKILL.md as the walk found it: a symlink out of the directory is no SKILL.md.
  const manifest = read.find((file) => file.path === SKILL_FILE);
  if (!manifest) throw new RangeError(`skill ${dir} has no ${SKILL_FILE} at its root`);
  const frontmatter: JSONObject = parseFrontmatter(new TextDecoder().decode(manifest.bytes));
  const { name, description } = frontmatter;
  if (typeof name !== 'string' || !isSkillName(name))
    throw new RangeError(`SKILL.md name ${JSON.stringify(name)} breaks the Agent Skills naming rules`);
  if (typeof description !== 'string' || description.length === 0 || description.length > 1024)
    throw new RangeError('SKILL.md description must be 1 to 1024 characters');
  // Agent Skills: name matches the parent directory name.
  if (basename(realRoot) !== name && basename(dir) !== name)
    throw new RangeError(`SKILL.md name ${name} does not match its directory ${basename(dir)}`);
  const base = `skill://${[...prefix, name].join('/')}`;
  const files = new Map<string, SkillFile>();
  for (const { path, bytes } of read) {
    const uri = uriOf(base, path);
    files.set(uri, { uri, path, bytes, digest: digestOf(bytes), mimeType: mimeTypeOf(path) });
  }
  const skillUri = `${base}/${SKILL_FILE}`;
  // SKILL.md first, then the rest in path order.
  const ordered = [...files.values()].sort((a, b) =>
    a.uri === skillUri ? -1 : b.uri === skillUri ? 1 : a.path < b.path ? -1 : 1,
  );
  const entry: SkillEntry = {
    uri: skillUri,
    frontmatter,
    resources: ordered.map((file) => ({ uri: file.uri, digest: file.digest, size: file.bytes.byteLength })),
  };
  return { entry, name, description, files };
}
