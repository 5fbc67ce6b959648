export {
  McpErrorCode,
  headerMismatch,
  invalidParams,
  isResourceNotFound,
  missingRequiredClientCapability,
  resourceNotFound,
  unsupportedProtocolVersion,
} from './errors.js';
export { mcpHooks } from './hooks.js';
export { Header, MetaKey } from './meta.js';
export {
  INPUT_REQUEST_METHODS,
  INPUT_REQUIRED_METHODS,
  Method,
  type MethodName,
  NAMED_METHODS,
  Notification,
  type NotificationName,
} from './methods.js';
export type { McpLocalErrorCode } from './local-errors.js';
export { type ResultType, readResultType } from './result-type.js';
export {
  type Era,
  LATEST_HANDSHAKE_VERSION,
  LATEST_PROTOCOL_VERSION,
  type ProtocolVersion,
  SUPPORTED_PROTOCOL_VERSIONS,
  allowsBatches,
  compareVersions,
  eraOf,
  handshakeVersions,
  isSupportedVersion,
  negotiateHandshakeVersion,
  statelessVersions,
} from './revisions.js';
export * from './types.js';
