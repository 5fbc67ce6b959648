/**
 * Names the model sees. Providers accept `^[a-zA-Z0-9_-]{1,64}$` (OpenAI, Anthropic and Gemini agree on
 * that much), while MCP tool names may hold dots, slashes and up to 128 characters, and two servers may both
 * offer `search`. The default llmName is `{server}__{tool}` (`weather__get_weather`),
 * sanitised; when two sources still end up with the same name, every one of them keeps a distinct name.
 */
import { createHash } from 'node:crypto';

export const LLM_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_NAME = 64;

/** How a (server, tool) pair becomes a name; the result is sanitised afterwards. */
export type ToolNamer = (server: string, tool: string) => string;

export const prefixedName: ToolNamer = (server, tool) => `${server}__${tool}`;

/**
 * Replaces every character a provider rejects with `_`. Names longer than 64 keep their head and end in a
 * short hash of the whole original, so two long names that share a prefix stay apart.
 */
export function sanitizeName(name: string): string {
  let clean = name.replace(/[^a-zA-Z0-9_-]/g, '_');
  if (clean === '') clean = '_';
  if (clean.length <= MAX_NAME) return clean;
  return `${clean.slice(0, MAX_NAME - 9)}_${shortHash(name)}`;
}

export interface NameRequest {
  /** Stable identity of the source, e.g. `tool\u0000weather\u0000get_weather`. */
  readonly key: string;
  readonly server: string;
  readonly name: string;
}

/**
 * Assigns a unique llmName to each request. Deterministic: the outcome depends only on the set of requests
 * and on `previous` (names handed out before keep their owner across refreshes, so a tool appearing later
 * never takes a name the model has already used). Among newcomers the first in (server, name) order keeps
 * the plain name; the others get `_2`, `_3`, ... (never dropped).
 */
export function assignNames(
  requests: readonly NameRequest[],
  namer: ToolNamer = prefixedName,
  previous: ReadonlyMap<string, string> = new Map(),
): Map<string, string> {
  const assigned = new Map<string, string>();
  const taken = new Set<string>();
  const wanted = new Map<string, string>();
  for (const request of requests) wanted.set(request.key, sanitizeName(namer(request.server, request.name)));
  for (const request of requests) {
    const prior = previous.get(request.key);
    // Keep a prior name only while it still derives from the same base (a renamed server gets new names).
    if (prior !== undefined && !taken.has(prior) && prior.startsWith(stem(wanted.get(request.key)!))) {
      assigned.set(request.key, prior);
      taken.add(prior);
    }
  }
  const pending = requests
    .filter((request) => !assigned.has(request.key))
    .sort((a, b) => compare(a.server, b.server) || compare(a.name, b.name) || compare(a.key, b.key));
  for (const request of pending) {
    const base = wanted.get(request.key)!;
    let name = base;
    for (let n = 2; taken.has(name); n++) {
      const suffix = `_${n}`;
      name = `${base.slice(0, MAX_NAME - suffix.length)}${suffix}`;
    }
    assigned.set(request.key, name);
    taken.add(name);
  }
  return assigned;
}

function stem(base: string): string {
  return base.slice(0, MAX_NAME - 4);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function shortHash(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 8);
}
