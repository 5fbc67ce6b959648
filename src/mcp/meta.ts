/** Reserved `_meta` keys (2026-07-28 basic/index: _meta). */
export const MetaKey = {
  ProtocolVersion: 'io.modelcontextprotocol/protocolVersion',
  ClientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  ClientInfo: 'io.modelcontextprotocol/clientInfo',
  LogLevel: 'io.modelcontextprotocol/logLevel',
  ServerInfo: 'io.modelcontextprotocol/serverInfo',
  SubscriptionId: 'io.modelcontextprotocol/subscriptionId',
  RelatedTask: 'io.modelcontextprotocol/related-task',
  ProgressToken: 'progressToken',
  TraceParent: 'traceparent',
  TraceState: 'tracestate',
  Baggage: 'baggage',
} as const;

/** HTTP headers of the Streamable HTTP transport. */
export const Header = {
  ProtocolVersion: 'mcp-protocol-version',
  SessionId: 'mcp-session-id',
  Method: 'mcp-method',
  Name: 'mcp-name',
  ParamPrefix: 'mcp-param-',
  LastEventId: 'last-event-id',
} as const;
