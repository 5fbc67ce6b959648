/**
 * Tool search (deferred loading): with hundreds of tools the model is not sent every definition. It gets a
 * `search_tools` tool and a small always-on set; the tools a search finds are offered from the next step of
 * the run on. The order is stable, so a provider's prompt cache keeps hitting: `search_tools`, the always-on
 * tools in registry order, then the loaded tools in the order they were found (the list only grows at its
 * end). Ranking is lexical (BM25) by default; an `EmbeddingModel` makes it semantic.
 */
import { type Bm25Document, Bm25Index } from './bm25.js';
import { GlobSet } from './glob.js';
import type { EmbeddingModel, ToolDefinition } from './model.js';

export const SEARCH_TOOL_NAME = 'search_tools';

export interface ToolSearchOptions {
  /**
   * `auto` (default): on when the tools on offer exceed `maxTools` or `maxDefinitionBytes` of JSON; `true`
   * or `false` force it.
   */
  readonly enabled?: boolean | 'auto';
  /** Default 64. */
  readonly maxTools?: number;
  /** Default 64 KiB, about 16,000 tokens of definitions in every request. */
  readonly maxDefinitionBytes?: number;
  /** llmName globs of tools always offered (besides `search_tools`). */
  readonly alwaysOn?: readonly string[];
  /** Tools one search returns at most. Default 5. */
  readonly maxResults?: number;
  /** Rank by meaning with this model's embeddings instead of by words (BM25). */
  readonly embeddings?: EmbeddingModel;
}

/** How tools are ranked for a query: ids (llmNames) best first. */
export interface ToolRanker {
  rank(query: string, limit: number, signal?: AbortSignal): Promise<readonly string[]>;
}

const SEARCH_DEFINITION: ToolDefinition = {
  name: SEARCH_TOOL_NAME,
  description:
    'Search the available tools by what you need to do. Returns the best matching tools, which become ' +
    'callable from your next step on. Search again with other words when nothing fits.',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'What the tool should do, in a few words' },
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: 20,
        description: 'How many tools to return (default 5)',
      },
    },
    required: ['query'],
  },
};

export class ToolSearch {
  readonly #options: ToolSearchOptions;
  readonly #alwaysOn: GlobSet;
  /** Per definitions list (the registry caches one per version and group set): its ranker and sizes. */
  readonly #indexes = new WeakMap<readonly ToolDefinition[], { ranker: ToolRanker; bytes: number }>();

  constructor(options: ToolSearchOptions = {}) {
    this.#options = options;
    this.#alwaysOn = new GlobSet(options.alwaysOn ?? []);
  }

  /** Whether the model gets `search_tools` instead of every definition. */
  active(definitions: readonly ToolDefinition[]): boolean {
    const enabled = this.#options.enabled ?? 'auto';
    if (enabled !== 'auto') return enabled;
    if (definitions.length > (this.#options.maxTools ?? 64)) return true;
    return this.#entry(definitions).bytes > (this.#options.maxDefinitionBytes ?? 64 * 1024);
  }

  /** What the model is offered: `search_tools`, the always-on tools, then `loaded` in the order found. */
  offered(definitions: readonly ToolDefinition[], loaded: ReadonlySet<string>): ToolDefinition[] {
    const byName = new Map(definitions.map((definition) => [definition.name, definition]));
    const out = [SEARCH_DEFINITION];
    for (const definition of definitions) if (this.#alwaysOn.matches(definition.name)) out.push(definition);
    for (const name of loaded) {
      const definition = byName.get(name);
      if (definition && !this.#alwaysOn.matches(name)) out.push(definition);
    }
    return out;
  }

  /**
   * Runs one `search_tools` call: the tools found (their names go into `loaded`) and the text the model
   * reads back, one line per tool with its description and parameters.
   */
  async search(
    definitions: readonly ToolDefinition[],
    args: Record<string, unknown>,
    loaded: Set<string>,
    signal?: AbortSignal,
  ): Promise<{ found: ToolDefinition[]; text: string; isError: boolean }> {
    const query = typeof args.query === 'string' ? args.query.trim() : '';
    if (query === '')
      return { found: [], text: 'search_tools needs a "query": what the tool should do.', isError: true };
    const max = this.#options.maxResults ?? 5;
    const limit = Number.isInteger(args.limit) ? Math.min(Math.max(args.limit as number, 1), 20) : max;
    const names = await this.#entry(definitions).ranker.rank(query, limit, signal);
    const byName = new Map(definitions.map((definition) => [definition.name, definition]));
    const found = names.flatMap((name) => byName.get(name) ?? []);
    for (const definition of found) loaded.add(definition.name);
    if (found.length === 0)
      return { found, text: `No tool matches "${query}". Try other words.`, isError: false };
    const lines = found.map(
      (definition) => `- ${definition.name}: ${oneLine(definition.description)}${parameters(definition)}`,
    );
    return {
      found,
      text: `Tools found for "${query}" (callable from your next step):\n${lines.join('\n')}`,
      isError: false,
    };
  }

  #entry(definitions: readonly ToolDefinition[]): { ranker: ToolRanker; bytes: number } {
    let entry = this.#indexes.get(definitions);
    if (!entry) {
      const bytes = definitions.reduce((sum, definition) => sum + JSON.stringify(definition).length, 0);
      const embeddings = this.#options.embeddings;
      const ranker = embeddings ? new EmbeddingRanker(embeddings, definitions) : new Bm25Ranker(definitions);
      entry = { ranker, bytes };
      this.#indexes.set(definitions, entry);
    }
    return entry;
  }
}

/** The text a tool is found by: its name, title and description, and its parameters' names and descriptions. */
function documentOf(definition: ToolDefinition): Bm25Document {
  const properties = (definition.inputSchema.properties ?? {}) as Record<string, { description?: unknown }>;
  const parameterText = Object.entries(properties)
    .map(([name, schema]) => `${name} ${typeof schema?.description === 'string' ? schema.description : ''}`)
    .join(' ');
  const name = definition.name.includes('__')
    ? definition.name.slice(definition.name.indexOf('__') + 2)
    : definition.name;
  return {
    id: definition.name,
    key: name,
    fields: [
      { text: name, weight: 3 },
      { text: definition.name.split('__')[0] ?? '', weight: 1 },
      { text: definition.description ?? '', weight: 1 },
      { text: parameterText, weight: 1 },
    ],
  };
}

export class Bm25Ranker implements ToolRanker {
  readonly #index: Bm25Index;

  constructor(definitions: readonly ToolDefinition[]) {
    this.#index = new Bm25Index(definitions.map(documentOf));
  }

  async rank(query: string, limit: number): Promise<readonly string[]> {
    return this.#index.search(query, limit).map((hit) => hit.id);
  }
}

/** Cosine similarity between the query's embedding and each tool's, embedded once per definitions list. */
export class EmbeddingRanker implements ToolRanker {
  readonly #model: EmbeddingModel;
  readonly #definitions: readonly ToolDefinition[];
  #vectors: Promise<readonly number[][]> | undefined;

  constructor(model: EmbeddingModel, definitions: readonly ToolDefinition[]) {
    this.#model = model;
    this.#definitions = definitions;
  }

  async rank(query: string, limit: number, signal?: AbortSignal): Promise<readonly string[]> {
    this.#vectors ??= this.#model.embed(
      this.#definitions.map((definition) =>
        documentOf(definition)
          .fields.map((field) => field.text)
          .join('\n'),
      ),
      signal,
    );
    // A failed embedding call is not cached: the next search tries again.
    const vectors = await this.#vectors.catch((error: unknown) => {
      this.#vectors = undefined;
      throw error;
    });
    const [queryVector] = await this.#model.embed([query], signal);
    if (!queryVector) return [];
    return vectors
      .map((vector, index) => ({ index, score: cosine(queryVector, vector) }))
      .sort((a, b) => b.score - a.score || a.index - b.index)
      .slice(0, limit)
      .map(({ index }) => this.#definitions[index]!.name);
  }
}

function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

function oneLine(text: string | undefined): string {
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat || '(no description)';
}

function parameters(definition: ToolDefinition): string {
  const properties = Object.keys((definition.inputSchema.properties ?? {}) as object);
  return properties.length === 0 ? '' : ` (parameters: ${properties.join(', ')})`;
}
