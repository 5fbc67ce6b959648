export { CACHEABLE_METHODS, ResultCache, type ResultCacheOptions } from './cache.js';
export { type CallToolParams, McpClient } from './client.js';
export type {
  CallOptions,
  ClientEraCodec,
  ClientMiddleware,
  ClientRequestContext,
  Link,
  LinkKind,
  NotificationListener,
  ServerNotification,
  ServerState,
  WireRequestOptions,
} from './contracts.js';
export {
  type CachedEra,
  EraCache,
  type HttpKind,
  TransportKindCache,
  defaultEraCache,
  defaultTransportKindCache,
} from './server-caches.js';
export {
  ClientEventEmitter,
  type ClientEventListener,
  type ClientEventName,
  type ClientEvents,
} from './events.js';
export { type FetchIconOptions, type IconBytes, checkImage, fetchIcon, safeIcons } from './icons.js';
export { withElicitationDefaults } from './input.js';
export { isModernError } from './stateless.js';
export type { Subscription } from './subscriptions.js';
export type {
  ClientHandlers,
  ClientOptions,
  ConnectTarget,
  HttpTransportKind,
  InputContext,
  RequestOptionsLite,
  RestartPolicy,
  StdioTarget,
  TraceContext,
  UrlTarget,
} from './types.js';
export {
  HttpStatusError,
  SseClientTransport,
  StreamableHttpClientTransport,
} from '../transports/http/client/index.js';
