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
export type { FromJsonSchema } from './json-schema-type.js';
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
export {
  type CallToolRequestParams,
  type ClientRequestMethod,
  type ClientRequests,
  type CompleteRequestParams,
  type CompletionReference,
  type Completed,
  type EmptyResult,
  type GetPromptRequestParams,
  type InitializeRequestParams,
  type InputRetryParams,
  type McpNotifications,
  type McpRequests,
  type MethodSpec,
  NOTIFICATIONS,
  type NotificationMethod,
  type NotificationParams,
  type NotificationParamsBase,
  type PaginatedRequestParams,
  REQUESTS,
  type ReadResourceRequestParams,
  type RequestMethod,
  type RequestParams,
  type RequestParamsBase,
  type RequestResult,
  type ResourceRequestParams,
  type ServerRequestMethod,
  type ServerRequests,
  type SetLevelRequestParams,
  type SubscriptionsListenRequestParams,
} from './requests.js';
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
export type {
  InferInput,
  InferOutput,
  StandardIssue,
  StandardResult,
  StandardSchemaProps,
  StandardSchemaV1,
  StandardTypes,
} from './standard-schema.js';
export * from './types.js';
