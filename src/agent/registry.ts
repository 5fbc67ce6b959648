/**
 * The tool registry: llmName -> (server, mcpName, schema, annotations), built from every
 * connected server's `tools/list` and, opt-in, a resource reader and a prompt getter per server. It is
 * rebuilt only when the host applies a refresh between turns; the model's tool definitions are cached per
 * set of active groups, so a turn never re-serialises the registry.
 */
import { createHash } from 'node:crypto';
import type { Prompt, Resource, Tool, ToolAnnotations } from '../mcp/types.js';
import type { ServerConfig } from './config.js';
import { jsonShapeViolation } from '../util/json-shape.js';
import { GlobSet } from './glob.js';
import type { ToolDefinition } from './model.js';
import { type ToolNamer, assignNames, prefixedName } from './naming.js';
import { isRecord } from '../util/record.js';

export type RegisteredKind = 'tool' | 'resource' | 'prompt';

export interface RegisteredTool {
  readonly llmName: string;
  readonly server: string;
  /** The name on the server: the MCP tool name, or `resources/read` / `prompts/get` for exposed readers. */
  readonly mcpName: string;
  readonly kind: RegisteredKind;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly annotations?: ToolAnnotations;
  /** The tool as the server listed it (kind `tool` only). */
  readonly tool?: Tool;
  readonly groups: readonly string[];
  /** Hash of what the model and the approver see (description and schema); changes call for re-approval. */
  readonly fingerprint: string;
}

/** What the host knows about one ready server. */
export interface ServerSnapshot {
  readonly config: ServerConfig;
  readonly tools: readonly Tool[];
  readonly resources?: readonly Resource[];
  readonly prompts?: readonly Prompt[];
}

export interface RegistryChange {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  /** Same llmName, different description or schema. */
  readonly changed: readonly string[];
}

interface Candidate {
  key: string;
  server: string;
  name: string;
  build: (llmName: string) => RegisteredTool;
}

export class ToolRegistry {
  #byName = new Map<string, RegisteredTool>();
  #namesByKey = new Map<string, string>();
  #definitionCache = new Map<string, readonly ToolDefinition[]>();
  /** Increments whenever the set of tools or any definition changes. */
  version = 0;

  readonly #namer: ToolNamer;

  constructor(namer: ToolNamer = prefixedName) {
    this.#namer = namer;
  }

  get size(): number {
    return this.#byName.size;
  }

  /** The tool named `llmName`; with `groups`, only when it is active for them (see `active`). */
  get(llmName: string, groups?: readonly string[]): RegisteredTool | undefined {
    const entry = this.#byName.get(llmName);
    if (!entry || groups === undefined || entry.groups.length === 0) return entry;
    return entry.groups.some((group) => groups.includes(group)) ? entry : undefined;
  }

  entries(): RegisteredTool[] {
    return [...this.#byName.values()];
  }

  /**
   * The model's view. `groups` undefined: every tool; otherwise tools of ungrouped servers plus those of
   * servers in one of the groups.
   */
  definitions(groups?: readonly string[]): readonly ToolDefinition[] {
    const cacheKey = groups === undefined ? '*' : [...groups].sort().join('\u0000');
    let cached = this.#definitionCache.get(cacheKey);
    if (!cached) {
      cached = this.active(groups).map((entry) => ({
        name: entry.llmName,
        description: entry.description,
        inputSchema: entry.inputSchema,
      }));
      this.#definitionCache.set(cacheKey, cached);
    }
    return cached;
  }

  active(groups?: readonly string[]): RegisteredTool[] {
    if (groups === undefined) return this.entries();
    const wanted = new Set(groups);
    return this.entries().filter(
      (entry) => entry.groups.length === 0 || entry.groups.some((g) => wanted.has(g)),
    );
  }

  /**
   * Rebuilds from the servers' current lists. Names already handed out stay with their tool. A tool that
   * cannot be taken in (a schema nested past the limit) is left out and reported to `onRejected`; so is a
   * whole server whose list fails to be taken in, and the other servers' tools are unaffected.
   */
  update(snapshots: readonly ServerSnapshot[], onRejected: OnRejected = () => {}): RegistryChange {
    const candidates = snapshots.flatMap((snapshot) => {
      try {
        return candidatesOf(snapshot, onRejected);
      } catch (error) {
        onRejected(snapshot.config.name, undefined, (error as Error).message);
        return [];
      }
    });
    const names = assignNames(candidates, this.#namer, this.#namesByKey);
    const next = new Map<string, RegisteredTool>();
    for (const candidate of candidates) {
      const llmName = names.get(candidate.key)!;
      next.set(llmName, candidate.build(llmName));
    }
    const added: string[] = [];
    const changed: string[] = [];
    for (const [name, entry] of next) {
      const before = this.#byName.get(name);
      if (!before) added.push(name);
      else if (before.fingerprint !== entry.fingerprint || before.server !== entry.server) changed.push(name);
    }
    const removed = [...this.#byName.keys()].filter((name) => !next.has(name));
    // A tool that is gone releases its name; the others keep theirs on the next rebuild.
    this.#namesByKey = names;
    this.#byName = new Map([...next].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    if (added.length + removed.length + changed.length > 0) {
      this.version++;
      this.#definitionCache = new Map();
    }
    return { added, removed, changed };
  }
}

/** Told about a tool (or, with `tool` undefined, a whole server's list) the registry had to leave out. */
export type OnRejected = (server: string, tool: string | undefined, reason: string) => void;

/** Peer data nested deeper than this (a tool's schema plus its envelope) is refused before anything walks it. */
const TOOL_SHAPE = { maxDepth: 66, maxNodes: 20_000 } as const;

function candidatesOf(snapshot: ServerSnapshot, onRejected: OnRejected): Candidate[] {
  const { config } = snapshot;
  const allow = new GlobSet(config.tools.allow);
  const deny = new GlobSet(config.tools.deny);
  const server = config.name;
  const groups = config.groups;
  const out: Candidate[] = [];
  const seen = new Set<string>();
  for (const tool of snapshot.tools) {
    if (typeof tool?.name !== 'string' || seen.has(tool.name)) continue; // a server listing a name twice
    seen.add(tool.name);
    if ((!allow.empty && !allow.matches(tool.name)) || deny.matches(tool.name)) continue;
    const violation = jsonShapeViolation(tool, TOOL_SHAPE);
    if (violation) {
      onRejected(server, tool.name, `its definition ${violation}`);
      continue;
    }
    const description = tool.description ?? tool.title ?? tool.annotations?.title ?? '';
    const inputSchema = normaliseSchema(tool.inputSchema);
    out.push({
      key: `tool\u0000${server}\u0000${tool.name}`,
      server,
      name: tool.name,
      build: (llmName) => ({
        llmName,
        server,
        mcpName: tool.name,
        kind: 'tool',
        description,
        inputSchema,
        ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
        tool,
        groups,
        fingerprint: fingerprint(description, inputSchema),
      }),
    });
  }
  if (config.expose.resources && snapshot.resources)
    out.push(resourceReader(server, groups, snapshot.resources));
  if (config.expose.prompts && snapshot.prompts) out.push(promptGetter(server, groups, snapshot.prompts));
  return out;
}

const MAX_LISTED = 50;

function resourceReader(
  server: string,
  groups: readonly string[],
  resources: readonly Resource[],
): Candidate {
  const listed = resources
    .slice(0, MAX_LISTED)
    .map((r) => `- ${r.uri}${r.description ? `: ${r.description}` : r.name ? ` (${r.name})` : ''}`);
  const description = `Read a resource of the "${server}" MCP server by URI. Known resources:\n${listed.join('\n')}`;
  const inputSchema = {
    type: 'object',
    properties: { uri: { type: 'string', description: 'The resource URI' } },
    required: ['uri'],
  };
  return exposed(server, groups, 'resource', 'resources/read', 'read_resource', description, inputSchema);
}

function promptGetter(server: string, groups: readonly string[], prompts: readonly Prompt[]): Candidate {
  const listed = prompts.slice(0, MAX_LISTED).map((p) => {
    const args = (p.arguments ?? []).map((a) => `${a.name}${a.required ? '' : '?'}`).join(', ');
    return `- ${p.name}(${args})${p.description ? `: ${p.description}` : ''}`;
  });
  const description = `Get a prompt of the "${server}" MCP server. Known prompts:\n${listed.join('\n')}`;
  const inputSchema = {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'The prompt name' },
      arguments: { type: 'object', additionalProperties: { type: 'string' } },
    },
    required: ['name'],
  };
  return exposed(server, groups, 'prompt', 'prompts/get', 'get_prompt', description, inputSchema);
}

function exposed(
  server: string,
  groups: readonly string[],
  kind: RegisteredKind,
  mcpName: string,
  name: string,
  description: string,
  inputSchema: Record<string, unknown>,
): Candidate {
  return {
    key: `${kind}\u0000${server}`,
    server,
    name,
    build: (llmName) => ({
      llmName,
      server,
      mcpName,
      kind,
      description,
      inputSchema,
      annotations: { readOnlyHint: true },
      groups,
      fingerprint: fingerprint(description, inputSchema),
    }),
  };
}

/** Providers insist on an object schema; a server that sends none (or junk) gets the empty object schema. */
function normaliseSchema(schema: unknown): Readonly<Record<string, unknown>> {
  if (!isRecord(schema)) return { type: 'object' };
  return schema.type === 'object' ? schema : { ...schema, type: 'object' };
}

export function fingerprint(description: string, inputSchema: unknown): string {
  return createHash('sha256')
    .update(description)
    .update('\u0000')
    .update(stableStringify(inputSchema))
    .digest('hex')
    .slice(0, 16);
}

/** JSON with sorted keys, so an equal schema sent in another key order is not a change. */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
