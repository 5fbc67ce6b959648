export { HttpStatusError, type HttpErrorHeaders, isHttpStatusError } from './errors.js';
export { DEFAULT_MAX_RESPONSE_BYTES } from './node-http.js';
export type {
  HttpRequestDescription,
  HttpRequestHeaderHook,
  StreamableHttpClientOptions,
  StreamableHttpMode,
} from './options.js';
export { SseClientTransport, type SseClientOptions } from './sse.js';
export { StreamableHttpClientTransport } from './streamable.js';
