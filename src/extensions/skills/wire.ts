/**
 * The skills extension's shapes and rules (SEP-2640, `io.modelcontextprotocol/skills`), shared by the server
 * (which publishes entries) and the client (which verifies what it loads against them).
 */
import { createHash } from 'node:crypto';
import { parse } from 'yaml';
import type { JSONObject } from '../../mcp/types.js';
import { isRecord } from '../../util/record.js';

export const SKILLS_EXTENSION_ID = 'io.modelcontextprotocol/skills';

export const SkillMethod = {
  List: 'skills/list',
  Get: 'skills/get',
} as const;

export const SKILL_FILE = 'SKILL.md';
/** SEP-2640 Limits: servers SHOULD NOT serve more files, or more bytes, per skill. */
export const MAX_SKILL_RESOURCES = 512;
export const MAX_SKILL_BYTES = 16 * 1024 * 1024;
/** A frontmatter block larger than this is refused (the whole entry travels in every listing). */
export const MAX_FRONTMATTER_BYTES = 64 * 1024;
/** `_meta` keys on skill resources use the extension's reverse-domain prefix (SEP-2640 Resource Metadata). */
export const META_PREFIX = 'io.modelcontextprotocol.skills/';

/** One file of a skill, as `resources` lists it. */
export interface SkillResource {
  uri: string;
  /** `sha256:` and 64 lowercase hex digits of the file's raw bytes. */
  digest: string;
  /** The file's length in bytes (the same bytes the digest covers). */
  size: number;
}

/** A skills/list entry, and the `skill` of a skills/get result. */
export interface SkillEntry {
  /** The URI of the skill's SKILL.md. */
  uri: string;
  /** SKILL.md's YAML frontmatter, verbatim, as JSON. */
  frontmatter: JSONObject;
  resources: SkillResource[];
}

/** Agent Skills naming rules: 1-64 characters, lowercase alphanumerics and single inner hyphens. */
const SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** A prefix segment: an RFC 3986 reg-name / path segment, without percent-encoding. */
const PREFIX_SEGMENT = /^[A-Za-z0-9._~-]+$/;
const DIGEST = /^sha256:[0-9a-f]{64}$/;

export function isSkillName(name: string): boolean {
  return name.length >= 1 && name.length <= 64 && SKILL_NAME.test(name);
}

export function isPrefixSegment(segment: string): boolean {
  return segment.length > 0 && segment.length <= 255 && PREFIX_SEGMENT.test(segment);
}

export function isDigest(value: unknown): value is string {
  return typeof value === 'string' && DIGEST.test(value);
}

export function digestOf(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** The skill name a SKILL.md URI ends in (its final <skill-path> segment), or undefined. */
export function skillNameOf(uri: string): string | undefined {
  const start = uri.indexOf('://');
  if (start < 0) return undefined;
  const segments = uri.slice(start + 3).split('/');
  if (segments.length < 2 || segments[segments.length - 1] !== SKILL_FILE) return undefined;
  return segments[segments.length - 2];
}

/** The skill's root (`skill://<skill-path>`), the SKILL.md URI without `/SKILL.md`. */
export function skillRootOf(uri: string): string | undefined {
  return uri.endsWith(`/${SKILL_FILE}`) ? uri.slice(0, -(SKILL_FILE.length + 1)) : undefined;
}

export class FrontmatterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FrontmatterError';
  }
}

const FRONTMATTER = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** SKILL.md's leading `---` YAML block as a JSON object; throws FrontmatterError when absent or not an object. */
export function parseFrontmatter(text: string): JSONObject {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const match = FRONTMATTER.exec(body);
  if (!match)
    throw new FrontmatterError('SKILL.md does not begin with a --- delimited YAML frontmatter block');
  const yaml = match[1] ?? '';
  if (Buffer.byteLength(yaml) > MAX_FRONTMATTER_BYTES)
    throw new FrontmatterError(`SKILL.md frontmatter exceeds ${MAX_FRONTMATTER_BYTES} bytes`);
  let value: unknown;
  try {
    // maxAliasCount: a hostile file must not expand into billions of nodes.
    value = parse(yaml, { maxAliasCount: 100, prettyErrors: false });
  } catch (error) {
    throw new FrontmatterError(`SKILL.md frontmatter is not valid YAML: ${(error as Error).message}`);
  }
  if (!isRecord(value)) throw new FrontmatterError('SKILL.md frontmatter is not a mapping');
  // Rendered as JSON: dates become strings, exactly what a listing can carry.
  return JSON.parse(JSON.stringify(value)) as JSONObject;
}

/** Deep equality of two JSON values (object key order ignored). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((item, index) => sameJson(item, b[index]));
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => Object.hasOwn(right, key) && sameJson(left[key], right[key]));
}

/** The fields whose values differ between two frontmatter objects (SEP-2640: compared field by field). */
export function frontmatterDifferences(file: JSONObject, entry: JSONObject): string[] {
  const keys = new Set([...Object.keys(file), ...Object.keys(entry)]);
  return [...keys].filter((key) => !sameJson(file[key] ?? null, entry[key] ?? null));
}
