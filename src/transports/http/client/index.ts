export { HttpStatusError, isHttpStatusError } from './errors.js';
export { DEFAULT_MAX_RESPONSE_BYTES } from './node-http.js';
export { SseClientTransport, type SseClientOptions } from './sse.js';
export {
  StreamableHttpClientTransport,
  type StreamableHttpClientOptions,
  type StreamableHttpMode,
} from './streamable.js';
