/**
 * What the gateway serves: every upstream's tools, resources, resource templates and prompts, namespaced as the
 * host names tools (`server__tool`; prompts and templates likewise; resource URIs as `server+uri`), each
 * endpoint's share of them (all servers, or one group's), and the McpServer registrations that mirror them.
 * Lists are served from these registrations, never fanned out per request; a change upstream becomes a
 * registration change, which the server announces (list_changed on sessions, subscriptions/listen streams).
 */
import { assignNames, sanitizeName } from '../agent/naming.js';
import type { RegisteredTool } from '../agent/registry.js';
import { stableStringify } from '../agent/registry.js';
import type { McpHost } from '../agent/host.js';
import type { McpClient } from '../client/client.js';
import type { Subscription } from '../client/subscriptions.js';
import type { Prompt, Resource, ResourceTemplate, Tool } from '../mcp/types.js';
import { UriTemplate } from '../mcp/uri-template.js';
import type { McpServer } from '../server/server.js';
import type { Completer, HandlerContext, RegisteredHandle, ToolConfig } from '../server/types.js';
import type { Logger } from '../util/logger.js';
import { type Hints, UNCACHED, hintsOf, listWithHints, privately } from './cache-hints.js';
import type { Forwarder } from './forward.js';

/** One registration an endpoint should have: its fingerprint says when it must be made again. */
export interface Desired {
  readonly key: string;
  readonly fingerprint: string;
  register(server: McpServer): RegisteredHandle<unknown>;
}

interface ServerLists {
  readonly resources: readonly Resource[];
  readonly templates: readonly ResourceTemplate[];
  readonly prompts: readonly Prompt[];
  /** The upstream's caching hints of each list (2026-07-28), given to what the gateway lists from it. */
  readonly hints: Readonly<Record<'tools' | 'resources' | 'templates' | 'prompts', Hints>>;
  readonly subscription?: Subscription;
}

/** Resource URIs an upstream's subscription covers at most (handshake era: one resources/subscribe each). */
const MAX_SUBSCRIBED = 100;

export interface CatalogOptions {
  readonly prefix: boolean;
  readonly logger: Logger;
  /** A name two upstreams wanted, and the name each one got instead. */
  readonly onCollision?: (kind: string, wanted: string, given: string, server: string) => void;
  /** Servers reached with each caller's own credentials: whatever comes from them is private. */
  readonly perPrincipal: ReadonlySet<string>;
}

export class Catalog {
  readonly #host: McpHost;
  readonly #forwarder: Forwarder;
  readonly #options: CatalogOptions;
  readonly #lists = new Map<string, ServerLists>();
  #names = new Map<string, string>();
  #schemes = new Map<string, string>();

  constructor(host: McpHost, forwarder: Forwarder, options: CatalogOptions) {
    this.#host = host;
    this.#forwarder = forwarder;
    this.#options = options;
  }

  /** Fetches a server's resources, templates and prompts again (or forgets them when it is not ready). */
  async refreshServer(server: string): Promise<void> {
    const status = this.#host.servers().find((s) => s.name === server);
    const client = this.#host.client(server) as McpClient | undefined;
    const previous = this.#lists.get(server);
    if (!client || status?.state !== 'ready') {
      this.#lists.delete(server);
      await previous?.subscription?.close().catch(() => undefined);
      return;
    }
    const capabilities = client.serverCapabilities ?? {};
    type Listed<T> = { items: T[]; hints: Hints };
    const none = <T>(): Promise<Listed<T>> => Promise.resolve({ items: [], hints: UNCACHED });
    const quiet = <T>(listing: Promise<Listed<T>>) =>
      listing.catch((error: unknown) => {
        this.#options.logger.warn(`server ${server}: listing failed`, error);
        return { items: [] as T[], hints: UNCACHED };
      });
    // Walked page by page for the lists' hints. The tools are the host's: only their hints are read here (one
    // more tools/list when the upstream's list changes).
    const [toolHints, listed, templateList, promptList] = await Promise.all([
      capabilities.tools ? quiet(listWithHints<Tool>((c) => client.listToolsPage(c), 'tools')) : none<Tool>(),
      capabilities.resources
        ? quiet(listWithHints<Resource>((c) => client.listResourcesPage(c), 'resources'))
        : none<Resource>(),
      capabilities.resources
        ? quiet(
            listWithHints<ResourceTemplate>((c) => client.listResourceTemplatesPage(c), 'resourceTemplates'),
          )
        : none<ResourceTemplate>(),
      capabilities.prompts
        ? quiet(listWithHints<Prompt>((c) => client.listPromptsPage(c), 'prompts'))
        : none<Prompt>(),
    ]);
    const resources = listed.items;
    const [templates, prompts] = [templateList.items, promptList.items];
    const shared = (hints: Hints) => (this.#options.perPrincipal.has(server) ? privately(hints) : hints);
    const hints = {
      tools: shared(toolHints.hints),
      resources: shared(listed.hints),
      templates: shared(templateList.hints),
      prompts: shared(promptList.hints),
    };
    const subscription = await this.#subscribe(client, resources, previous?.subscription);
    this.#lists.set(server, {
      resources,
      templates,
      prompts,
      hints,
      ...(subscription ? { subscription } : {}),
    });
    this.#assign();
  }

  async close(): Promise<void> {
    await Promise.all(
      [...this.#lists.values()].map((lists) => lists.subscription?.close().catch(() => undefined)),
    );
    this.#lists.clear();
  }

  /** The URI downstream clients see for an upstream resource URI. */
  uriFor(server: string, uri: string): string {
    if (!this.#options.prefix) return uri;
    return `${this.#schemes.get(server) ?? schemeOf(server)}+${uri}`;
  }

  /** The registrations of the endpoint serving `group` (undefined: every server). */
  desired(group: string | undefined, groupsOf: (server: string) => readonly string[]): Desired[] {
    const inGroup = (server: string) => group === undefined || groupsOf(server).includes(group);
    const out: Desired[] = [];
    for (const entry of this.#host.registry.entries()) {
      if (entry.kind === 'tool' && inGroup(entry.server)) out.push(this.#tool(entry));
    }
    for (const [server, lists] of this.#lists) {
      if (!inGroup(server)) continue;
      for (const resource of lists.resources) out.push(this.#resource(server, resource));
      for (const template of lists.templates) out.push(this.#template(server, template));
      for (const prompt of lists.prompts) out.push(this.#prompt(server, prompt));
    }
    return out;
  }

  /** Tools whose namespaced name another upstream's tool already had: (wanted, given, server) of each. */
  toolCollisions(): Array<{ wanted: string; given: string; server: string }> {
    if (!this.#options.prefix) return [];
    return this.#host.registry
      .entries()
      .filter((entry) => entry.kind === 'tool')
      .map((entry) => ({
        wanted: sanitizeName(`${entry.server}__${entry.mcpName}`),
        given: entry.llmName,
        server: entry.server,
      }))
      .filter((collision) => collision.wanted !== collision.given);
  }

  /** The downstream tool name of a registry entry: the host's llmName, or the exact name without a prefix. */
  toolName(entry: RegisteredTool): string {
    return this.#options.prefix ? entry.llmName : entry.mcpName;
  }

  #tool(entry: RegisteredTool): Desired {
    const name = this.toolName(entry);
    const tool: Partial<Tool> = entry.tool ?? {};
    const config: ToolConfig = withoutUndefined({
      title: tool.title,
      description: tool.description,
      inputSchema: (tool.inputSchema ?? entry.inputSchema) as ToolConfig['inputSchema'],
      outputSchema: tool.outputSchema as ToolConfig['outputSchema'],
      annotations: tool.annotations,
      icons: tool.icons,
      _meta: tool._meta,
    });
    const hints = this.#hints(entry.server, 'tools');
    return {
      key: `tool\u0000${name}`,
      fingerprint: `${entry.server}\u0000${stableStringify(tool)}\u0000${stableStringify(hints)}`,
      register: (server) =>
        server.registerTool(name, { ...config, ...hints }, (args, context) =>
          this.#forwarder.callTool(name, entry, args, context),
        ),
    };
  }

  #resource(server: string, resource: Resource): Desired {
    const uri = this.uriFor(server, resource.uri);
    const { uri: _uri, name, ...metadata } = resource;
    const hints = this.#hints(server, 'resources');
    return {
      key: `resource\u0000${uri}`,
      fingerprint: `${server}\u0000${stableStringify(resource)}\u0000${stableStringify(hints)}`,
      register: (mcp) =>
        mcp.registerResource(name, uri, { ...withoutUndefined(metadata), ...hints }, (_read, context) =>
          this.#read(server, resource.uri, uri, context),
        ),
    };
  }

  #template(server: string, template: ResourceTemplate): Desired {
    const name = this.#nameOf('template', server, template.name);
    const uriTemplate = this.uriFor(server, template.uriTemplate);
    const { uriTemplate: _template, name: _name, ...metadata } = template;
    const complete: Record<string, Completer> = {};
    let variables: readonly string[] = [];
    try {
      variables = new UriTemplate(template.uriTemplate).variableNames;
    } catch {
      // A template the gateway cannot parse is still listed; its variables just get no completion.
    }
    for (const variable of variables) {
      complete[variable] = (value, context) =>
        this.#forwarder.complete(server, {
          ref: { type: 'ref/resource', uri: template.uriTemplate },
          argument: { name: variable, value },
          context: { arguments: context.arguments },
        });
    }
    const prefix = uriTemplate.slice(0, uriTemplate.length - template.uriTemplate.length);
    const hints = this.#hints(server, 'templates');
    return {
      key: `template\u0000${name}`,
      fingerprint: `${server}\u0000${stableStringify(template)}\u0000${stableStringify(hints)}`,
      register: (mcp) =>
        mcp.registerResourceTemplate(
          name,
          uriTemplate,
          { ...withoutUndefined(metadata), ...hints, complete },
          (uri, _variables, context) => this.#read(server, uri.slice(prefix.length), uri, context),
        ),
    };
  }

  #prompt(server: string, prompt: Prompt): Desired {
    const name = this.#nameOf('prompt', server, prompt.name);
    const complete: Record<string, Completer> = {};
    for (const argument of prompt.arguments ?? []) {
      complete[argument.name] = (value, context) =>
        this.#forwarder.complete(server, {
          ref: { type: 'ref/prompt', name: prompt.name },
          argument: { name: argument.name, value },
          context: { arguments: context.arguments },
        });
    }
    const { name: _name, ...config } = prompt;
    const hints = this.#hints(server, 'prompts');
    return {
      key: `prompt\u0000${name}`,
      fingerprint: `${server}\u0000${stableStringify(prompt)}\u0000${stableStringify(hints)}`,
      register: (mcp) =>
        mcp.registerPrompt(name, { ...withoutUndefined(config), ...hints, complete }, (args, context) =>
          this.#forwarder.getPrompt({ name, server, upstreamName: prompt.name }, args, context),
        ),
    };
  }

  async #read(server: string, upstreamUri: string, uri: string, context: HandlerContext) {
    const result = await this.#forwarder.readResource(
      { name: uri, server, upstreamName: upstreamUri },
      context,
    );
    // The upstream's own hints for this read, never widened (a per-principal upstream's read is private).
    const own = hintsOf(result);
    const hints = this.#options.perPrincipal.has(server) ? privately(own) : own;
    // Contents name their URI: the one the downstream asked for, so a client can match them.
    return {
      ...hints,
      contents: result.contents.map((content) =>
        content.uri === upstreamUri
          ? { ...content, uri }
          : { ...content, uri: this.uriFor(server, content.uri) },
      ),
      ...(result._meta === undefined ? {} : { _meta: result._meta }),
    };
  }

  /** The hints of one of a server's lists, as the gateway lists what came from it. */
  #hints(server: string, list: keyof ServerLists['hints']): Hints {
    return this.#lists.get(server)?.hints[list] ?? UNCACHED;
  }

  #nameOf(kind: 'prompt' | 'template', server: string, name: string): string {
    if (!this.#options.prefix) return name;
    return this.#names.get(`${kind}\u0000${server}\u0000${name}`) ?? sanitizeName(`${server}__${name}`);
  }

  /** Names prompts and templates (deterministic, stable across refreshes) and gives each server a URI scheme. */
  #assign(): void {
    if (!this.#options.prefix) return;
    const requests = [...this.#lists].flatMap(([server, lists]) => [
      ...lists.prompts.map((p) => ({ key: `prompt\u0000${server}\u0000${p.name}`, server, name: p.name })),
      ...lists.templates.map((t) => ({
        key: `template\u0000${server}\u0000${t.name}`,
        server,
        name: t.name,
      })),
    ]);
    const byKind = (kind: string) => requests.filter((request) => request.key.startsWith(`${kind}\u0000`));
    const names = new Map([
      ...assignNames(byKind('prompt'), undefined, this.#names),
      ...assignNames(byKind('template'), undefined, this.#names),
    ]);
    for (const request of requests) {
      const given = names.get(request.key)!;
      const wanted = sanitizeName(`${request.server}__${request.name}`);
      if (given !== wanted && this.#names.get(request.key) !== given)
        this.#options.onCollision?.(request.key.split('\u0000')[0]!, wanted, given, request.server);
    }
    this.#names = names;
    this.#schemes = schemes(this.#host.config.servers.map((s) => s.name));
  }

  async #subscribe(
    client: McpClient,
    resources: readonly Resource[],
    previous: Subscription | undefined,
  ): Promise<Subscription | undefined> {
    await previous?.close().catch(() => undefined);
    if (!client.serverCapabilities?.resources?.subscribe || resources.length === 0) return undefined;
    const uris = resources.slice(0, MAX_SUBSCRIBED).map((resource) => resource.uri);
    // Updates arrive as the client's resourceUpdated events, which the gateway relays.
    return client.subscribe({ resourceSubscriptions: uris }, () => {}).catch(() => undefined);
  }
}

/** A URI scheme per server (RFC 3986: a letter, then letters, digits, `+`, `-`, `.`), distinct for each. */
function schemes(servers: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  const taken = new Set<string>();
  for (const server of [...servers].sort()) {
    const base = schemeOf(server);
    let scheme = base;
    for (let n = 2; taken.has(scheme); n++) scheme = `${base}-${n}`;
    taken.add(scheme);
    out.set(server, scheme);
  }
  return out;
}

function schemeOf(server: string): string {
  const clean = server.toLowerCase().replace(/[^a-z0-9.-]/g, '-');
  return /^[a-z]/.test(clean) ? clean : `s${clean}`;
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** One endpoint's registrations, kept equal to what the catalog wants. */
export class Mirror {
  readonly #handles = new Map<string, { fingerprint: string; handle: RegisteredHandle<unknown> }>();

  readonly #logger: Logger;

  constructor(
    readonly server: McpServer,
    logger: Logger,
  ) {
    this.#logger = logger;
  }

  apply(desired: readonly Desired[]): void {
    const wanted = new Map(desired.map((item) => [item.key, item]));
    for (const [key, held] of this.#handles) {
      const next = wanted.get(key);
      if (next && next.fingerprint === held.fingerprint) continue;
      held.handle.remove();
      this.#handles.delete(key);
    }
    for (const item of desired) {
      if (this.#handles.has(item.key)) continue;
      try {
        this.#handles.set(item.key, { fingerprint: item.fingerprint, handle: item.register(this.server) });
      } catch (error) {
        // One upstream entry the gateway cannot serve (a schema it cannot compile, a bad URI) is left out.
        this.#logger.warn(`left out ${item.key.replace('\u0000', ' ')}`, error);
      }
    }
  }

  has(key: string): boolean {
    return this.#handles.has(key);
  }
}
