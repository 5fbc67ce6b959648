export type { HttpAuthGuard, HttpAuthOutcome, HttpAuthRequest, HttpAuthResponse } from './auth.js';
export { type FetchHandler, type FetchHandlerContext, createFetchHandler } from './fetch.js';
export { type NodeHandler, createNodeHandler } from './node.js';
export { DEFAULT_MAX_BODY_BYTES, type HttpServerOptions, LOCALHOST_NAMES } from './options.js';
export type { HttpMcpServer, ServerSessionHandle } from './types.js';
export {
  type EventStore,
  InMemoryEventStore,
  InMemorySessionStore,
  type SessionRecord,
  type SessionRelay,
  type SessionStore,
  type StoredSessionEvent,
  readSessionRecord,
} from './session-store.js';
