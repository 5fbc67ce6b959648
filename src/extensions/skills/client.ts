/**
 * The skills extension on the client (SEP-2640 Integrity and verification): list skills without fetching any
 * file; load a skill by reading its SKILL.md, verified against the entry (size, then digest, then frontmatter
 * field by field); read its supporting files only when needed, and only those the entry lists, each verified.
 * Any mismatch refuses the content with a SkillVerificationError: unverified bytes are never returned.
 */
import type { McpClient } from '../../client/client.js';
import { LocalError } from '../../jsonrpc/errors.js';
import type { JSONObject } from '../../mcp/types.js';
import {
  MAX_SKILL_RESOURCES,
  SKILLS_EXTENSION_ID,
  SkillMethod,
  type SkillEntry,
  type SkillResource,
  digestOf,
  frontmatterDifferences,
  isDigest,
  parseFrontmatter,
  skillRootOf,
} from './wire.js';
import { isRecord } from '../../util/record.js';

const MAX_PAGES = 100;
const MAX_ENTRIES = 10_000;

export type SkillVerificationFailure =
  | 'size_mismatch'
  | 'digest_mismatch'
  | 'frontmatter_mismatch'
  | 'unlisted_file';

/** The content is not what the entry promised (tampered, corrupted or stale): it was not used. */
export class SkillVerificationError extends Error {
  constructor(
    readonly failure: SkillVerificationFailure,
    readonly uri: string,
    message: string,
  ) {
    super(message);
    this.name = 'SkillVerificationError';
  }
}

/** A listed entry, checked for the shape verification relies on; malformed entries are a protocol error. */
export function readSkillEntry(value: unknown): SkillEntry {
  if (!isRecord(value) || typeof value.uri !== 'string' || !isRecord(value.frontmatter))
    throw new LocalError('protocol_error', 'a skill entry needs a uri and a frontmatter object');
  const resources = value.resources;
  if (!Array.isArray(resources) || resources.length > MAX_SKILL_RESOURCES)
    throw new LocalError('protocol_error', `skill ${value.uri} lists no usable resources`);
  for (const resource of resources) {
    const entry = resource as Partial<SkillResource> | null;
    if (
      typeof entry?.uri !== 'string' ||
      !isDigest(entry.digest) ||
      !Number.isInteger(entry.size) ||
      (entry.size as number) < 0
    )
      throw new LocalError('protocol_error', `skill ${value.uri} has a malformed resources entry`);
  }
  return value as unknown as SkillEntry;
}

/** A skill whose SKILL.md passed verification; supporting files are read (and verified) on demand. */
export class LoadedSkill {
  readonly #reader: (resource: SkillResource) => Promise<Uint8Array>;

  constructor(
    readonly entry: SkillEntry,
    /** SKILL.md as verified: what the host gives the model. */
    readonly instructions: string,
    reader: (resource: SkillResource) => Promise<Uint8Array>,
  ) {
    this.#reader = reader;
  }

  get name(): string {
    return String(this.entry.frontmatter.name);
  }

  get description(): string {
    return String(this.entry.frontmatter.description);
  }

  /** A supporting file by its path relative to the skill root (`references/FORMS.md`) or its full URI. */
  async readFile(pathOrUri: string): Promise<Uint8Array> {
    const root = skillRootOf(this.entry.uri) ?? '';
    const uri = pathOrUri.includes('://') ? pathOrUri : `${root}/${pathOrUri.replace(/^\.?\//, '')}`;
    const resource = this.entry.resources.find((listed) => listed.uri === uri);
    // SEP-2640: while acting on a skill, a read of an unlisted file is a verification failure.
    if (!resource)
      throw new SkillVerificationError('unlisted_file', uri, `${uri} is not listed in the skill's resources`);
    return this.#reader(resource);
  }

  async readText(pathOrUri: string): Promise<string> {
    return new TextDecoder().decode(await this.readFile(pathOrUri));
  }
}

export class SkillsClient {
  readonly #client: McpClient;

  constructor(client: McpClient) {
    this.#client = client;
  }

  /** Whether the server declared the skills extension. */
  get supported(): boolean {
    const extensions = this.#client.serverCapabilities.extensions;
    return isRecord(extensions) && Object.hasOwn(extensions, SKILLS_EXTENSION_ID);
  }

  /** Every listed skill (all pages), without reading any skill file. */
  async list(): Promise<SkillEntry[]> {
    const entries: SkillEntry[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await this.#client.request(SkillMethod.List, cursor === undefined ? {} : { cursor });
      const skills = (result as JSONObject).skills;
      if (!Array.isArray(skills))
        throw new LocalError('protocol_error', 'skills/list result has no skills array');
      for (const skill of skills) entries.push(readSkillEntry(skill));
      if (entries.length > MAX_ENTRIES)
        throw new LocalError('protocol_error', 'skills/list returned too many skills');
      const next = (result as JSONObject).nextCursor;
      if (typeof next !== 'string' || next.length === 0 || seen.has(next)) return entries;
      seen.add(next);
      cursor = next;
    }
    return entries;
  }

  async get(uri: string): Promise<SkillEntry> {
    const result = await this.#client.request(SkillMethod.Get, { uri });
    return readSkillEntry((result as JSONObject).skill);
  }

  /** Loads a skill: reads SKILL.md only, verified against the entry. Throws SkillVerificationError on any mismatch. */
  async load(entry: SkillEntry): Promise<LoadedSkill> {
    const manifest = entry.resources.find((resource) => resource.uri === entry.uri);
    if (!manifest)
      throw new SkillVerificationError(
        'unlisted_file',
        entry.uri,
        `${entry.uri} lists no entry for its SKILL.md`,
      );
    const bytes = await this.#readVerified(manifest);
    const instructions = new TextDecoder().decode(bytes);
    let frontmatter: JSONObject;
    try {
      frontmatter = parseFrontmatter(instructions);
    } catch (error) {
      throw new SkillVerificationError('frontmatter_mismatch', entry.uri, (error as Error).message);
    }
    const differences = frontmatterDifferences(frontmatter, entry.frontmatter);
    if (differences.length > 0)
      throw new SkillVerificationError(
        'frontmatter_mismatch',
        entry.uri,
        `${entry.uri}: SKILL.md frontmatter differs from the listed entry in ${differences.join(', ')}`,
      );
    return new LoadedSkill(entry, instructions, (resource) => this.#readVerified(resource));
  }

  /** resources/read, then size before digest (a size mismatch fails without hashing). */
  async #readVerified(resource: SkillResource): Promise<Uint8Array> {
    const result = await this.#client.readResource({ uri: resource.uri });
    const content = (result.contents ?? []).find((item) => item.uri === resource.uri) ?? result.contents?.[0];
    let bytes: Uint8Array;
    if (content && 'text' in content && typeof content.text === 'string')
      bytes = new TextEncoder().encode(content.text);
    else if (content && 'blob' in content && typeof content.blob === 'string')
      bytes = Buffer.from(content.blob, 'base64');
    else
      throw new SkillVerificationError('size_mismatch', resource.uri, `${resource.uri} returned no content`);
    if (bytes.byteLength !== resource.size)
      throw new SkillVerificationError(
        'size_mismatch',
        resource.uri,
        `${resource.uri} is ${bytes.byteLength} bytes, the entry says ${resource.size}`,
      );
    const digest = digestOf(bytes);
    if (digest !== resource.digest)
      throw new SkillVerificationError(
        'digest_mismatch',
        resource.uri,
        `${resource.uri} does not match its digest`,
      );
    return bytes;
  }
}
