/**
 * The agent's tracing seam: what a tracer (agentforge/otel's `agentTracing()`) plugs into, so the agent
 * itself depends on no telemetry library. A run goes through `invokeAgent`; model turns and tool calls through
 * its middleware (`chat`, `tool`), outermost of their pipelines (a tool call's span covers approval, audit and the call, and
 * is the active context while the MCP request is made).
 */
import type { RunResult } from './events.js';
import type { ModelMiddleware, ToolMiddleware } from './middleware.js';

/** What is known of a run before it starts. */
export interface AgentRunStart {
  /** The agent's model, `<provider>:<model>`. */
  readonly model: string;
  readonly input: string;
}

export interface AgentTracing {
  /** Runs one agent run (`execute`) and returns its result: an `invoke_agent` span around it. */
  invokeAgent(run: AgentRunStart, execute: () => Promise<RunResult>): Promise<RunResult>;
  /** The middleware around each model turn of an agent whose model is `model` (`chat {model}`). */
  chat?(model: string): ModelMiddleware;
  /** Around each tool call (`execute_tool {tool}`). */
  readonly tool?: ToolMiddleware;
}
