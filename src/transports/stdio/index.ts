export {
  StdioClientTransport,
  type StdioClientTransportOptions,
  type StdioServerParameters,
} from './client.js';
export { DEFAULT_INHERITED_ENV_VARS, defaultEnvironment } from './env.js';
export { DEFAULT_MAX_LINE_BYTES, LineReader, type LineReaderEvents, frame } from './framing.js';
export { StdioServerTransport, type StdioServerTransportOptions } from './server.js';
