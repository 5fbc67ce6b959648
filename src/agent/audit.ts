/**
 * The audit log: one JSON line per tool call (who, which tool, arguments, approval, result size, duration),
 * written by the outermost tool middleware so denials and short-circuits are recorded too.
 */
import { userInfo } from 'node:os';
import { appendFile } from 'node:fs/promises';
import type { ToolMiddleware } from './middleware.js';
import { isoNow } from '../util/clock.js';

export interface AuditEntry {
  readonly ts: string;
  readonly runId: string;
  /** The person or service the agent acts for. */
  readonly user: string;
  readonly model: string;
  readonly step: number;
  readonly callId: string;
  readonly llmName: string;
  readonly server: string | null;
  readonly tool: string | null;
  readonly arguments: Record<string, unknown>;
  readonly approval: { readonly decision: string; readonly by: string; readonly reason?: string } | null;
  readonly status: string;
  readonly isError: boolean;
  /** Bytes of the result as JSON (what the server sent, before truncation for the model). */
  readonly resultBytes: number;
  readonly durationMs: number;
}

export type AuditSink = (entry: AuditEntry) => void | Promise<void>;

/** Appends JSONL to `path`, one write at a time so lines never interleave (any entry shape: the gateway's too). */
export function fileAuditSink<Entry = AuditEntry>(path: string): (entry: Entry) => Promise<void> {
  let queue: Promise<void> = Promise.resolve();
  return (entry) => {
    const line = `${JSON.stringify(entry)}\n`;
    queue = queue.then(() => appendFile(path, line, { mode: 0o600 }));
    return queue;
  };
}

export function auditMiddleware(sink: AuditSink, who: { user: string; model: string }): ToolMiddleware {
  return async (context, next) => {
    const started = performance.now();
    const outcome = await next(context);
    const approval = outcome.approval ?? context.approval;
    await sink({
      ts: isoNow(),
      runId: context.runId,
      user: who.user,
      model: who.model,
      step: context.step,
      callId: context.call.id,
      llmName: context.call.name,
      server: context.tool?.server ?? null,
      tool: context.tool?.mcpName ?? null,
      arguments: outcome.arguments ?? context.arguments,
      approval: approval
        ? {
            decision: approval.decision,
            by: approval.by,
            ...(approval.reason ? { reason: approval.reason } : {}),
          }
        : null,
      status: outcome.status,
      isError: outcome.result.isError === true,
      resultBytes: Buffer.byteLength(JSON.stringify(outcome.result)),
      durationMs: Math.round(performance.now() - started),
    });
    return outcome;
  };
}

/** The local account name, for audit lines that name no user. */
export function safeUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}
