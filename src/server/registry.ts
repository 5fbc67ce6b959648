/**
 * The server's primitives (tools, resources, resource templates, prompts) in registration order, which is the
 * deterministic order every list uses. Each kind keeps a generation counter; list pages are built once per
 * (generation, revision) and reused until something changes.
 */
import type { JSONObject } from '../mcp/types.js';
import type { RegisteredHandle } from './types.js';

export type PrimitiveKind = 'tools' | 'resources' | 'prompts';

export interface Entry<Config> {
  readonly key: string;
  config: Config;
  enabled: boolean;
  /** The list item as the newest revision sends it; rebuilt on update. */
  wire: JSONObject;
}

export interface Page {
  readonly items: readonly JSONObject[];
  readonly nextCursor: string | undefined;
}

const CURSOR_PREFIX = 'c1:';
const MAX_CURSOR_LENGTH = 128;

export function encodeCursor(offset: number): string {
  return Buffer.from(`${CURSOR_PREFIX}${offset}`, 'utf8').toString('base64url');
}

/** The offset an opaque cursor stands for, or undefined when it is not one of ours. */
export function decodeCursor(cursor: string): number | undefined {
  if (cursor.length > MAX_CURSOR_LENGTH) return undefined;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!text.startsWith(CURSOR_PREFIX)) return undefined;
  const offset = Number(text.slice(CURSOR_PREFIX.length));
  return Number.isSafeInteger(offset) && offset > 0 ? offset : undefined;
}

/** One kind's entries plus the cache of its pages per revision. */
export class Collection<Config> {
  readonly #entries = new Map<string, Entry<Config>>();
  readonly #onChange: () => void;
  readonly #toWire: (key: string, config: Config) => JSONObject;
  #enabled: Entry<Config>[] | undefined;
  #pages = new Map<string, readonly Page[]>();

  constructor(toWire: (key: string, config: Config) => JSONObject, onChange: () => void) {
    this.#toWire = toWire;
    this.#onChange = onChange;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): Entry<Config> | undefined {
    const entry = this.#entries.get(key);
    return entry?.enabled ? entry : undefined;
  }

  /** An entry whether enabled or not. */
  find(key: string): Entry<Config> | undefined {
    return this.#entries.get(key);
  }

  /** Enabled entries in registration order. */
  enabled(): readonly Entry<Config>[] {
    this.#enabled ??= [...this.#entries.values()].filter((entry) => entry.enabled);
    return this.#enabled;
  }

  add(key: string, config: Config, what: string): RegisteredHandle<Partial<Config>> {
    if (this.#entries.has(key)) throw new Error(`${what} ${JSON.stringify(key)} is already registered`);
    const entry: Entry<Config> = { key, config, enabled: true, wire: this.#toWire(key, config) };
    this.#entries.set(key, entry);
    this.#changed();
    return this.#handle(entry);
  }

  /**
   * The pages of this kind for one revision: `shape` maps each newest-revision item to that revision's form.
   * Built once per generation and revision.
   */
  pages(revision: string, pageSize: number, shape: (item: JSONObject) => JSONObject): readonly Page[] {
    const cached = this.#pages.get(revision);
    if (cached) return cached;
    const items = this.enabled().map((entry) => shape(entry.wire));
    const pages: Page[] = [];
    for (let offset = 0; offset < items.length || offset === 0; offset += pageSize) {
      const end = offset + pageSize;
      pages.push({
        items: items.slice(offset, end),
        nextCursor: end < items.length ? encodeCursor(end) : undefined,
      });
      if (items.length === 0) break;
    }
    this.#pages.set(revision, pages);
    return pages;
  }

  #changed(): void {
    this.#enabled = undefined;
    this.#pages = new Map();
    this.#onChange();
  }

  #handle(entry: Entry<Config>): RegisteredHandle<Partial<Config>> {
    const collection = this;
    return {
      get name() {
        return entry.key;
      },
      get enabled() {
        return entry.enabled;
      },
      update(changes) {
        if (collection.#entries.get(entry.key) !== entry) throw new Error(`${entry.key} was removed`);
        entry.config = { ...entry.config, ...changes };
        entry.wire = collection.#toWire(entry.key, entry.config);
        collection.#changed();
      },
      enable() {
        if (entry.enabled || collection.#entries.get(entry.key) !== entry) return;
        entry.enabled = true;
        collection.#changed();
      },
      disable() {
        if (!entry.enabled) return;
        entry.enabled = false;
        collection.#changed();
      },
      remove() {
        if (collection.#entries.get(entry.key) !== entry) return;
        collection.#entries.delete(entry.key);
        entry.enabled = false;
        collection.#changed();
      },
    };
  }
}

/** Copies the defined members of `source` named in `fields` (undefined members are never put on the wire). */
export function pick(source: Record<string, unknown>, fields: readonly string[]): JSONObject {
  const out: JSONObject = {};
  for (const field of fields) {
    const value = source[field];
    if (value !== undefined) out[field] = value;
  }
  return out;
}
