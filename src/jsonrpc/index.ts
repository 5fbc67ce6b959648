export {
  Connection,
  type ConnectionOptions,
  type FailedRequest,
  type SentRequest,
  type NotificationHandler,
  type Params,
  type RequestArguments,
  type RequestContext,
  type RequestHandler,
  type RequestMap,
  type RequestOptions,
  type RequestTypes,
  type Result,
} from './connection.js';
export { ErrorCode, LocalError, type LocalErrorCode, RpcError, isLocalError, toWireError } from './errors.js';
export { type ProtocolHooks, noHooks } from './hooks.js';
export {
  type Classified,
  type InvalidMessage,
  type JSONRPCErrorObject,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type JSONRPCResultResponse,
  type MessageKind,
  type RequestId,
  classify,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResponse,
  isRequestId,
} from './messages.js';
export type { MessageExtra, SendOptions, Transport } from './transport.js';
