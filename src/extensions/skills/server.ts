/**
 * The skills extension on the server (SEP-2640): skills read from directories, each file a `skill://` resource
 * served through resources/read, `skills/list` (paginated, entries never split) and `skills/get`.
 *
 * ```ts
 * const skills = useSkills(server);
 * await skills.registerSkill('./skills/pdf-processing');          // skill://pdf-processing/SKILL.md
 * await skills.registerSkill('./team/refunds', { prefix: ['acme', 'billing'] });
 * ```
 */
import { invalidParams } from '../../mcp/errors.js';
import type { JSONObject } from '../../mcp/types.js';
import type { ExtensionMethod, ServerExtension } from '../../server/extension.js';
import type { CacheHints } from '../../server/types.js';
import type { McpServer } from '../../server/server.js';
import { type LoadedSkill, type SkillFile, loadSkillDirectory } from './directory.js';
import { META_PREFIX, SKILLS_EXTENSION_ID, SkillMethod, type SkillEntry } from './wire.js';

export interface SkillsServerOptions {
  /** Entries per skills/list page (default 50). */
  pageSize?: number;
  /** Caching hints on skills/list and skills/get results on 2026-07-28 (default ttlMs 0, private). */
  ttlMs?: number;
  cacheScope?: 'public' | 'private';
}

export interface RegisterSkillOptions {
  /** Organisational prefix segments: `['acme', 'billing']` serves `skill://acme/billing/<name>/...`. */
  prefix?: string[];
}

const MAX_URI_LENGTH = 2048;

function encodeCursor(offset: number): string {
  return Buffer.from(`skills:${offset}`).toString('base64url');
}

function decodeCursor(cursor: unknown): number {
  if (typeof cursor !== 'string' || cursor.length > 64) throw invalidParams('Invalid cursor');
  const match = /^skills:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw invalidParams('Invalid cursor');
  return Number(match[1]);
}

/** A file's resources/read contents: text when it is UTF-8, else base64; digest and size in `_meta`. */
function contentsOf(file: SkillFile): JSONObject {
  const meta = { [`${META_PREFIX}digest`]: file.digest, [`${META_PREFIX}size`]: file.bytes.byteLength };
  const text = decodeUtf8(file.bytes);
  return text === undefined
    ? {
        uri: file.uri,
        mimeType: file.mimeType,
        blob: Buffer.from(file.bytes).toString('base64'),
        _meta: meta,
      }
    : { uri: file.uri, mimeType: file.mimeType, text, _meta: meta };
}

function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

export class SkillsExtension implements ServerExtension {
  readonly id = SKILLS_EXTENSION_ID;
  readonly settings: JSONObject = {};
  /** Skill files are served through resources/read (SEP-2640 Capability Declaration). */
  readonly capabilities = { resources: {} };
  /** skills/list and skills/get are open to every client (not `gated`): the listing is how a host learns of the skills. */
  readonly methods: Readonly<Record<string, ExtensionMethod>>;
  readonly #server: McpServer;
  readonly #skills = new Map<string, LoadedSkill>();
  readonly #pageSize: number;
  /** 2026-07-28 (SEP-2549): skills/list and skills/get results carry ttlMs and cacheScope. */
  readonly #cache: CacheHints;

  constructor(server: McpServer, options: SkillsServerOptions = {}) {
    this.#server = server;
    this.#pageSize = Math.max(1, Math.floor(options.pageSize ?? 50));
    this.#cache = {
      ttlMs: Math.max(0, Math.floor(options.ttlMs ?? 0)),
      cacheScope: options.cacheScope ?? 'private',
    };
    this.methods = {
      [SkillMethod.List]: { cache: this.#cache, handler: (params) => this.#list(params) },
      [SkillMethod.Get]: { cache: this.#cache, handler: (params) => this.#get(params) },
    };
  }

  /** The entries served, in registration order. */
  get entries(): SkillEntry[] {
    return [...this.#skills.values()].map((skill) => skill.entry);
  }

  /** Reads a skill directory and serves it; resolves to its entry. Throws on a malformed or oversized skill. */
  async registerSkill(dir: string, options: RegisterSkillOptions = {}): Promise<SkillEntry> {
    const skill = await loadSkillDirectory(dir, options.prefix ?? []);
    if (this.#skills.has(skill.entry.uri)) throw new Error(`skill ${skill.entry.uri} is already registered`);
    for (const file of skill.files.values()) {
      const isManifest = file.uri === skill.entry.uri;
      // SEP-2640 Resource Metadata: SKILL.md's name and description come from its frontmatter.
      const metadata = isManifest
        ? { description: skill.description, mimeType: file.mimeType, size: file.bytes.byteLength }
        : { mimeType: file.mimeType, size: file.bytes.byteLength };
      const name = isManifest ? skill.name : `${skill.name}/${file.path}`;
      this.#server.registerResource(name, file.uri, metadata, () => ({
        contents: [contentsOf(file) as never],
      }));
    }
    this.#skills.set(skill.entry.uri, skill);
    return skill.entry;
  }

  #list(params: JSONObject | undefined): JSONObject {
    const cursor = params?.cursor;
    const start = cursor === undefined ? 0 : decodeCursor(cursor);
    const all = this.entries;
    // Whole entries per page: a skill's resources set is never split across pages.
    const page = all.slice(start, start + this.#pageSize);
    const result: JSONObject = { skills: page as unknown as JSONObject[] };
    if (start + this.#pageSize < all.length) result.nextCursor = encodeCursor(start + this.#pageSize);
    return result;
  }

  #get(params: JSONObject | undefined): JSONObject {
    const uri = params?.uri;
    if (typeof uri !== 'string' || uri.length === 0 || uri.length > MAX_URI_LENGTH)
      throw invalidParams('skills/get requires the uri of a SKILL.md');
    const skill = this.#skills.get(uri);
    // SEP-2640 Retrieval: a URI that names no served skill is -32602.
    if (!skill) throw invalidParams(`Unknown skill: ${uri.slice(0, 200)}`, { uri: uri.slice(0, 200) });
    return { skill: skill.entry as unknown as JSONObject };
  }
}

/** Installs the skills extension on `server` and returns it, ready for `registerSkill`. */
export function useSkills(server: McpServer, options?: SkillsServerOptions): SkillsExtension {
  const skills = new SkillsExtension(server, options);
  server.use(skills);
  return skills;
}
