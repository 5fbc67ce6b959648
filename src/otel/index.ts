/**
 * OpenTelemetry for agentforge (semantic-conventions-genai: docs/gen-ai/mcp.md and the GenAI agent spans):
 * CLIENT and SERVER spans of every MCP request with their duration histograms, the trace carried in `_meta`
 * and the W3C headers, and the agent's `invoke_agent` / `chat` / `execute_tool` spans. Needs
 * `@opentelemetry/api` (an optional peer dependency) and an SDK registered by the application; without one
 * every hook here steps aside.
 */
export { agentTracing } from './agent.js';
export { clientTracing } from './client.js';
export { Attr, Metric, TOOL_ERROR } from './conventions.js';
export { GATEWAY_UPSTREAM, type GatewayTracing, gatewayTracing } from './gateway.js';
export { clientRequestTracing, inputTracing } from './input.js';
export { SCOPE_NAME, type TelemetryOptions } from './instruments.js';
export { serverTracing } from './server.js';
