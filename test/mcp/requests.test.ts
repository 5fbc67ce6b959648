/**
 * The method-keyed maps (src/mcp/requests.ts) against the JSON Schema of every revision: the methods each
 * revision defines, who sends them, and the field names of their params and results. The field lists below are
 * checked twice: by the compiler against the map's types (exactly their known keys) and here against the schemas.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type McpNotifications,
  type McpRequests,
  Method,
  NOTIFICATIONS,
  Notification,
  type NotificationMethod,
  REQUESTS,
  type RequestMethod,
  SUPPORTED_PROTOCOL_VERSIONS,
  compareVersions,
} from '../../src/mcp/index.js';
import type { InputRequiredResult } from '../../src/mcp/types.js';
import { SPEC_DIR } from '../support/schema.js';

/** Deliberately out of the maps: the 2025-11-25 tasks methods, owned by the tasks extension (ext-tasks). */
const EXCLUDED_METHODS = new Set([
  'tasks/get',
  'tasks/result',
  'tasks/list',
  'tasks/cancel',
  'notifications/tasks/status',
  // The 2026-07-28 tasks extension's own methods (src/extensions/tasks/wire.ts), not in the core schema.
  'tasks/update',
  'notifications/tasks',
]);
/** The tasks field some 2025-11-25 params carry (task-augmented requests), out for the same reason. */
const EXCLUDED_FIELDS = new Set(['task']);
/** Fields every result may carry (the schemas' `Result`), typed once in ResultBase. */
const COMMON_RESULT_FIELDS = new Set(['_meta', 'resultType']);

// ---- field lists, held to the map's types by the compiler ----

type KnownKeys<T> = T extends unknown
  ? keyof { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] } & string
  : never;
/** A list of T's known keys that names each of them: a missing one is a compile error naming it. */
function fields<T>() {
  return <const L extends readonly KnownKeys<T>[]>(
    list: L &
      ([Exclude<KnownKeys<T>, L[number]>] extends [never]
        ? unknown
        : { missing: Exclude<KnownKeys<T>, L[number]> }),
  ): readonly string[] => list;
}
type P<M extends RequestMethod> = NonNullable<McpRequests[M]['params']>;
type R<M extends RequestMethod> = Exclude<McpRequests[M]['result'], InputRequiredResult>;
type N<M extends NotificationMethod> = NonNullable<McpNotifications[M]['params']>;

const PAGED = ['_meta', 'cursor'] as const;
const CACHE = ['_meta', 'resultType', 'ttlMs', 'cacheScope'] as const;
const PAGE = [...CACHE, 'nextCursor'] as const;
const EMPTY = ['_meta', 'resultType'] as const;
const RETRY = ['_meta', 'inputResponses', 'requestState'] as const;

const REQUEST_FIELDS: {
  [M in RequestMethod]: { params: readonly string[]; result: readonly string[]; resultDef: string };
} = {
  initialize: {
    params: fields<P<'initialize'>>()(['_meta', 'protocolVersion', 'capabilities', 'clientInfo']),
    result: fields<R<'initialize'>>()([
      ...EMPTY,
      'protocolVersion',
      'capabilities',
      'serverInfo',
      'instructions',
    ]),
    resultDef: 'InitializeResult',
  },
  ping: {
    params: fields<P<'ping'>>()(['_meta']),
    result: fields<R<'ping'>>()(EMPTY),
    resultDef: 'EmptyResult',
  },
  'server/discover': {
    params: fields<P<'server/discover'>>()(['_meta']),
    result: fields<R<'server/discover'>>()([...CACHE, 'supportedVersions', 'capabilities', 'instructions']),
    resultDef: 'DiscoverResult',
  },
  'tools/list': {
    params: fields<P<'tools/list'>>()(PAGED),
    result: fields<R<'tools/list'>>()([...PAGE, 'tools']),
    resultDef: 'ListToolsResult',
  },
  'tools/call': {
    params: fields<P<'tools/call'>>()([...RETRY, 'name', 'arguments']),
    result: fields<R<'tools/call'>>()([...EMPTY, 'content', 'structuredContent', 'isError']),
    resultDef: 'CallToolResult',
  },
  'resources/list': {
    params: fields<P<'resources/list'>>()(PAGED),
    result: fields<R<'resources/list'>>()([...PAGE, 'resources']),
    resultDef: 'ListResourcesResult',
  },
  'resources/templates/list': {
    params: fields<P<'resources/templates/list'>>()(PAGED),
    result: fields<R<'resources/templates/list'>>()([...PAGE, 'resourceTemplates']),
    resultDef: 'ListResourceTemplatesResult',
  },
  'resources/read': {
    params: fields<P<'resources/read'>>()([...RETRY, 'uri']),
    result: fields<R<'resources/read'>>()([...CACHE, 'contents']),
    resultDef: 'ReadResourceResult',
  },
  'resources/subscribe': {
    params: fields<P<'resources/subscribe'>>()(['_meta', 'uri']),
    result: fields<R<'resources/subscribe'>>()(EMPTY),
    resultDef: 'EmptyResult',
  },
  'resources/unsubscribe': {
    params: fields<P<'resources/unsubscribe'>>()(['_meta', 'uri']),
    result: fields<R<'resources/unsubscribe'>>()(EMPTY),
    resultDef: 'EmptyResult',
  },
  'prompts/list': {
    params: fields<P<'prompts/list'>>()(PAGED),
    result: fields<R<'prompts/list'>>()([...PAGE, 'prompts']),
    resultDef: 'ListPromptsResult',
  },
  'prompts/get': {
    params: fields<P<'prompts/get'>>()([...RETRY, 'name', 'arguments']),
    result: fields<R<'prompts/get'>>()([...EMPTY, 'description', 'messages']),
    resultDef: 'GetPromptResult',
  },
  'completion/complete': {
    params: fields<P<'completion/complete'>>()(['_meta', 'ref', 'argument', 'context']),
    result: fields<R<'completion/complete'>>()([...EMPTY, 'completion']),
    resultDef: 'CompleteResult',
  },
  'logging/setLevel': {
    params: fields<P<'logging/setLevel'>>()(['_meta', 'level']),
    result: fields<R<'logging/setLevel'>>()(EMPTY),
    resultDef: 'EmptyResult',
  },
  'subscriptions/listen': {
    params: fields<P<'subscriptions/listen'>>()(['_meta', 'notifications']),
    result: fields<R<'subscriptions/listen'>>()(EMPTY),
    resultDef: 'SubscriptionsListenResult',
  },
  'sampling/createMessage': {
    params: fields<P<'sampling/createMessage'>>()([
      '_meta',
      'messages',
      'maxTokens',
      'systemPrompt',
      'modelPreferences',
      'includeContext',
      'temperature',
      'stopSequences',
      'metadata',
      'tools',
      'toolChoice',
    ]),
    result: fields<R<'sampling/createMessage'>>()([...EMPTY, 'role', 'content', 'model', 'stopReason']),
    resultDef: 'CreateMessageResult',
  },
  'elicitation/create': {
    params: fields<P<'elicitation/create'>>()([
      '_meta',
      'mode',
      'message',
      'requestedSchema',
      'url',
      'elicitationId',
    ]),
    result: fields<R<'elicitation/create'>>()([...EMPTY, 'action', 'content']),
    resultDef: 'ElicitResult',
  },
  'roots/list': {
    params: fields<P<'roots/list'>>()(['_meta']),
    result: fields<R<'roots/list'>>()([...EMPTY, 'roots']),
    resultDef: 'ListRootsResult',
  },
};

const NOTIFICATION_FIELDS: { [M in NotificationMethod]: readonly string[] } = {
  'notifications/initialized': fields<N<'notifications/initialized'>>()(['_meta']),
  'notifications/cancelled': fields<N<'notifications/cancelled'>>()(['_meta', 'requestId', 'reason']),
  'notifications/progress': fields<N<'notifications/progress'>>()([
    '_meta',
    'progressToken',
    'progress',
    'total',
    'message',
  ]),
  'notifications/message': fields<N<'notifications/message'>>()(['_meta', 'level', 'logger', 'data']),
  'notifications/tools/list_changed': fields<N<'notifications/tools/list_changed'>>()(['_meta']),
  'notifications/resources/list_changed': fields<N<'notifications/resources/list_changed'>>()(['_meta']),
  'notifications/resources/updated': fields<N<'notifications/resources/updated'>>()(['_meta', 'uri']),
  'notifications/prompts/list_changed': fields<N<'notifications/prompts/list_changed'>>()(['_meta']),
  'notifications/roots/list_changed': fields<N<'notifications/roots/list_changed'>>()(['_meta']),
  'notifications/subscriptions/acknowledged': fields<N<'notifications/subscriptions/acknowledged'>>()([
    '_meta',
    'notifications',
  ]),
  'notifications/elicitation/complete': fields<N<'notifications/elicitation/complete'>>()(['elicitationId']),
};

// ---- the schemas ----

type Node = Record<string, unknown>;
interface Revision {
  defs: Record<string, Node>;
  /** method -> the definitions whose `method` is that const, requests and notifications apart. */
  requests: Map<string, string[]>;
  notifications: Map<string, string[]>;
}

function loadRevision(revision: string): Revision {
  const schema = JSON.parse(readFileSync(join(SPEC_DIR, revision, 'schema.json'), 'utf8')) as Node;
  const defs = (schema.$defs ?? schema.definitions) as Record<string, Node>;
  const requests = new Map<string, string[]>();
  const notifications = new Map<string, string[]>();
  for (const [name, def] of Object.entries(defs)) {
    const method = ((def.properties as Node | undefined)?.method as Node | undefined)?.const;
    if (typeof method !== 'string') continue;
    const table = name.endsWith('Request')
      ? requests
      : name.endsWith('Notification')
        ? notifications
        : undefined;
    if (!table)
      throw new Error(`${revision}: ${name} has a method const but is neither a request nor a notification`);
    table.set(method, [...(table.get(method) ?? []), name]);
  }
  return { defs, requests, notifications };
}

const revisions = new Map(SUPPORTED_PROTOCOL_VERSIONS.map((revision) => [revision, loadRevision(revision)]));

/** Property names of a schema node, through `$ref`, `allOf`, `anyOf` and `oneOf`. */
function propertiesOf(revision: Revision, node: unknown, depth = 0): Set<string> {
  const names = new Set<string>();
  if (typeof node !== 'object' || node === null || depth > 8) return names;
  const record = node as Node;
  if (typeof record.$ref === 'string') {
    const target = revision.defs[record.$ref.split('/').pop() as string];
    for (const name of propertiesOf(revision, target, depth + 1)) names.add(name);
  }
  for (const name of Object.keys((record.properties as Node | undefined) ?? {})) names.add(name);
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    for (const part of (record[key] as unknown[] | undefined) ?? []) {
      for (const name of propertiesOf(revision, part, depth + 1)) names.add(name);
    }
  }
  return names;
}

/** The union over a method's definitions (every revision that has it) of its params' property names. */
function paramsFields(method: string, kind: 'requests' | 'notifications'): Set<string> {
  const names = new Set<string>();
  for (const revision of revisions.values()) {
    for (const defName of revision[kind].get(method) ?? []) {
      const params = (revision.defs[defName]?.properties as Node).params;
      for (const name of propertiesOf(revision, params)) if (!EXCLUDED_FIELDS.has(name)) names.add(name);
    }
  }
  return names;
}

function definedIn(spec: { since: string; until?: string }, revision: string): boolean {
  return (
    compareVersions(revision, spec.since) >= 0 &&
    (spec.until === undefined || compareVersions(revision, spec.until) <= 0)
  );
}

/** The methods a revision's ClientX / ServerX union lists (2026-07-28 has no ServerRequest union). */
function unionMethods(revision: Revision, unionName: string): Set<string> {
  const union = revision.defs[unionName];
  const methods = new Set<string>();
  if (!union) return methods;
  const members = (union.anyOf as Node[] | undefined)?.map(
    (member) => revision.defs[String(member.$ref).split('/').pop() as string],
  ) ?? [union];
  for (const member of members) {
    const method = ((member?.properties as Node | undefined)?.method as Node | undefined)?.const;
    if (typeof method === 'string') methods.add(method);
  }
  return methods;
}

const sorted = (values: Iterable<string>) => [...values].sort();

describe('McpRequests / McpNotifications against spec/<revision>/schema.json', () => {
  for (const [version, revision] of revisions) {
    it(`${version}: the request and notification methods are exactly the maps' for that revision`, () => {
      const requests = Object.entries(REQUESTS).filter(([, spec]) => definedIn(spec, version));
      const notifications = Object.entries(NOTIFICATIONS).filter(([, spec]) => definedIn(spec, version));
      const inSchema = (table: Map<string, string[]>) =>
        sorted([...table.keys()].filter((m) => !EXCLUDED_METHODS.has(m)));
      expect(sorted(requests.map(([method]) => method))).toEqual(inSchema(revision.requests));
      expect(sorted(notifications.map(([method]) => method))).toEqual(inSchema(revision.notifications));
    });

    it(`${version}: each message's sender matches the schema's Client*/Server* unions`, () => {
      const sides = [
        ['client', unionMethods(revision, 'ClientRequest'), unionMethods(revision, 'ClientNotification')],
        ['server', unionMethods(revision, 'ServerRequest'), unionMethods(revision, 'ServerNotification')],
      ] as const;
      for (const [side, requests, notifications] of sides) {
        for (const method of [...requests, ...notifications]) {
          if (EXCLUDED_METHODS.has(method)) continue;
          const spec = REQUESTS[method as RequestMethod] ?? NOTIFICATIONS[method as NotificationMethod];
          expect([side, 'both'], `${version} ${method}`).toContain(spec.sender);
        }
      }
    });

    it(`${version}: every result definition the map names exists`, () => {
      for (const [method, spec] of Object.entries(REQUESTS)) {
        if (!definedIn(spec, version)) continue;
        expect(revision.defs[REQUEST_FIELDS[method as RequestMethod].resultDef], `${method}`).toBeDefined();
      }
    });
  }

  it('a sender of "both" sends in some revision from each side', () => {
    for (const [method, spec] of [...Object.entries(REQUESTS), ...Object.entries(NOTIFICATIONS)]) {
      if (spec.sender !== 'both') continue;
      const kind = method.startsWith('notifications/') ? 'Notification' : 'Request';
      for (const side of ['Client', 'Server']) {
        const somewhere = [...revisions.values()].some((revision) =>
          unionMethods(revision, `${side}${kind}`).has(method),
        );
        expect(somewhere, `${side} sends ${method}`).toBe(true);
      }
    }
  });

  it('the params of every request and notification have the schema field names', () => {
    for (const method of Object.keys(REQUESTS) as RequestMethod[]) {
      expect(sorted(REQUEST_FIELDS[method].params), method).toEqual(sorted(paramsFields(method, 'requests')));
    }
    for (const method of Object.keys(NOTIFICATIONS) as NotificationMethod[]) {
      expect(sorted(NOTIFICATION_FIELDS[method]), method).toEqual(
        sorted(paramsFields(method, 'notifications')),
      );
    }
  });

  it('the result of every request has the schema field names (common result fields aside)', () => {
    for (const [method, spec] of Object.entries(REQUESTS) as Array<
      [RequestMethod, (typeof REQUESTS)[RequestMethod]]
    >) {
      const names = new Set<string>();
      for (const [version, revision] of revisions) {
        if (!definedIn(spec, version)) continue;
        const def = revision.defs[REQUEST_FIELDS[method].resultDef];
        for (const name of propertiesOf(revision, def)) if (!EXCLUDED_FIELDS.has(name)) names.add(name);
      }
      const ours = REQUEST_FIELDS[method].result.filter((name) => !COMMON_RESULT_FIELDS.has(name));
      expect(sorted(ours), method).toEqual(
        sorted([...names].filter((name) => !COMMON_RESULT_FIELDS.has(name))),
      );
    }
  });

  it("the Method and Notification constants name exactly the maps' methods (tasks aside)", () => {
    const methods = Object.values(Method).filter((method) => !EXCLUDED_METHODS.has(method));
    expect(sorted(methods)).toEqual(sorted(Object.keys(REQUESTS)));
    const notifications = Object.values(Notification).filter((method) => !EXCLUDED_METHODS.has(method));
    expect(sorted(notifications)).toEqual(sorted(Object.keys(NOTIFICATIONS)));
  });
});
