/**
 * The tasks extension's wire shapes (SEP-2663, `io.modelcontextprotocol/tasks`, schema/draft/schema.ts of
 * modelcontextprotocol/ext-tasks): written once, used by the server (to answer) and the client (to read).
 */
import type { InputRequests, InputResponse, JSONObject } from '../../mcp/types.js';

export const TASKS_EXTENSION_ID = 'io.modelcontextprotocol/tasks';

export const TaskMethod = {
  Get: 'tasks/get',
  Update: 'tasks/update',
  Cancel: 'tasks/cancel',
} as const;

/** SEP-2663 Task Status. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

export const TERMINAL_STATUSES: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

export function isTerminal(status: TaskStatus): boolean {
  return TERMINAL_STATUSES.has(status);
}

/** Whether a tool may run as a task: `optional` (the server decides per call) or `required` (always a task). */
export type TaskSupport = 'optional' | 'required';

/** A JSON-RPC error object as a `failed` task carries it. */
export interface TaskError {
  code: number;
  message: string;
  data?: unknown;
}

/** SEP-2663 `Task`: the fields every task shape carries. */
export interface Task {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  /** Milliseconds from createdAt the task is kept, or null for unlimited. */
  ttlMs: number | null;
  pollIntervalMs?: number;
}

/** SEP-2663 `DetailedTask`: a Task with what its status implies (tasks/get, notifications/tasks). */
export interface DetailedTask extends Task {
  inputRequests?: InputRequests;
  result?: JSONObject;
  error?: TaskError;
}

/** The record a TaskStore keeps: the wire fields plus ownership and pending input/cancel state. */
export interface TaskRecord {
  readonly taskId: string;
  /** Who created it: another principal's id is unknown to it (SEP-2663 Security: Auth binding). */
  readonly principal: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  readonly lastUpdatedAt: number;
  readonly ttlMs: number | null;
  readonly pollIntervalMs?: number;
  /** Requests still waiting for an answer (status input_required). */
  readonly inputRequests?: InputRequests;
  /** Answers delivered by tasks/update that the running handler has not taken yet. */
  readonly inputResponses?: Readonly<Record<string, InputResponse>>;
  readonly result?: JSONObject;
  readonly error?: TaskError;
  /** tasks/cancel was received: the running handler is asked to stop. */
  readonly cancelRequested?: boolean;
}

/** The detailed task as the wire carries it. */
export function detailedTask(record: TaskRecord): DetailedTask {
  const task: DetailedTask = {
    taskId: record.taskId,
    status: record.status,
    createdAt: new Date(record.createdAt).toISOString(),
    lastUpdatedAt: new Date(record.lastUpdatedAt).toISOString(),
    ttlMs: record.ttlMs,
  };
  if (record.statusMessage !== undefined) task.statusMessage = record.statusMessage;
  if (record.pollIntervalMs !== undefined) task.pollIntervalMs = record.pollIntervalMs;
  if (record.status === 'input_required') task.inputRequests = { ...(record.inputRequests ?? {}) };
  if (record.status === 'completed' && record.result) task.result = record.result;
  if (record.status === 'failed' && record.error) task.error = record.error;
  return task;
}

/** The CreateTaskResult fields (SEP-2663 Task Creation): a Task, flat, without result/error/inputRequests. */
export function createTaskResult(record: TaskRecord): JSONObject {
  const { inputRequests: _i, result: _r, error: _e, ...task } = detailedTask(record);
  return { ...task, resultType: 'task' } as unknown as JSONObject;
}
