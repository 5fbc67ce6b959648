/**
 * Human approval of tool calls. By default every call needs approval: a server's annotations
 * (`readOnlyHint`, ...) are hints, not trust. Policies pre-approve (`all`, globs over llmNames, a server's
 * `approval` key); everything else goes to the `approver` (the CLI's prompt), and without one it is denied
 * and the model is told so. A tool whose description or schema changed after it was approved is asked
 * about again, with a diff, whatever the policy says; until then the model is offered the definition that was
 * approved, not the new text (a rewritten description must not steer the model before anyone has read it).
 */
import type { ServerApproval } from './config.js';
import { GlobSet } from './glob.js';
import {
  type ApprovalRecord,
  type Next,
  type OutcomeSink,
  type ToolContext,
  type ToolMiddleware,
  type ToolOutcome,
  deniedOutcome,
} from './middleware.js';
import type { ToolDefinition } from './model.js';
import type { RegisteredTool, ToolRegistry } from './registry.js';

/** `all`: approve every call; `none`: approve nothing automatically; globs: approve matching llmNames. */
export type ApprovalPolicy = 'all' | 'none' | { readonly tools: readonly string[] };

export interface ApprovalRequest {
  readonly runId: string;
  /** The model's id of the call waiting for this answer (UIs show that call as waiting). */
  readonly callId: string;
  readonly tool: RegisteredTool;
  readonly arguments: Record<string, unknown>;
  /** `policy`: nothing pre-approves this call; `changed`: the tool changed since it was approved. */
  readonly reason: 'policy' | 'changed';
  /** Line diff of the tool's definition (`-` before, `+` now) when `reason` is `changed`. */
  readonly diff?: string;
}

/** `always`: approve and stop asking for this tool (until it changes). */
export type ApprovalAnswer = 'allow' | 'always' | 'deny' | { readonly deny: string };

export type Approver = (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalAnswer>;

/** Parses the CLI's `--approve all|none|<glob,glob>`. */
export function parseApprovalPolicy(value: string | undefined): ApprovalPolicy {
  if (value === undefined || value === 'none') return 'none';
  if (value === 'all') return 'all';
  const tools = value
    .split(',')
    .map((glob) => glob.trim())
    .filter(Boolean);
  return { tools };
}

interface Approved {
  readonly fingerprint: string;
  readonly definition: string;
  /** What the model was offered when the tool was approved. */
  readonly offered: ToolDefinition;
  /** The decision as first recorded: later calls report who really approved the tool. */
  readonly record: ApprovalRecord;
  /** Approved for every later call ("always"), not just the one. */
  readonly always: boolean;
}

export interface ApprovalGateOptions {
  readonly policy?: ApprovalPolicy;
  readonly approver?: Approver;
  /** Each server's `approval` key from the config. */
  readonly servers?: ReadonlyMap<string, ServerApproval>;
}

export class ApprovalGate {
  readonly #policy: ApprovalPolicy;
  readonly #policyGlobs: GlobSet;
  readonly #approved = new Map<string, Approved>();
  /** Bumped on every approval: the model's view of a tool may change with it. */
  #approvals = 0;
  readonly #views = new WeakMap<readonly ToolDefinition[], { approvals: number; view: ToolDefinition[] }>();

  readonly #options: ApprovalGateOptions;

  constructor(options: ApprovalGateOptions = {}) {
    this.#options = options;
    this.#policy = options.policy ?? 'none';
    this.#policyGlobs = new GlobSet(typeof this.#policy === 'object' ? this.#policy.tools : []);
  }

  /** The gate as the innermost-but-one tool middleware: it sees arguments other middleware produced. */
  readonly middleware: ToolMiddleware = (context, next) =>
    this.guard(context, (admitted) =>
      next(admitted).then((outcome) =>
        // Object.assign: on Node 20 a spread with an extra key (`{ ...outcome, approval }`) takes a slow runtime path.
        admitted.approval ? Object.assign({}, outcome, { approval: admitted.approval }) : outcome,
      ),
    );

  /**
   * The gate in front of `end`: a call it admits goes on to `end` with the decision as `context.approval`, a denied
   * one ends here. `end` reports the decision in its outcome itself, so the pipeline spends no reaction of its own
   * on it; `middleware` adds it for any other `next`.
   */
  guard(context: ToolContext, end: Next<ToolContext, ToolOutcome>): Promise<ToolOutcome> {
    return this.pass(context, (admitted, approval) =>
      end(approval ? Object.assign({}, admitted, { approval }) : admitted),
    );
  }

  /**
   * As `guard`, with the decision handed to `end` beside the context instead of in a copy of it (the agent's
   * own pipeline end, executeTool, takes it so): no object copied per call.
   */
  pass(
    context: ToolContext,
    end: (context: ToolContext, approval?: ApprovalRecord) => Promise<ToolOutcome>,
  ): Promise<ToolOutcome> {
    // Calls that cannot run (unknown tool, unparsable arguments) fail further in without bothering anyone.
    if (!context.tool || context.call.invalidArguments) return end(context);
    // Most calls are decided without asking anyone: no promise and no extra turn of the microtask queue.
    const settled = this.#settled(context.tool);
    if ('decision' in settled) return this.#admit(context, end, settled);
    return this.#ask(context, context.tool, settled.reason, settled.diff).then((approval) =>
      this.#admit(context, end, approval),
    );
  }

  /**
   * As `pass`, for an end that hands its outcome to `sink` itself (the agent's calls without tool middleware): no
   * promise to chain on, and a denial, or an approver that failed, goes to `sink` too.
   */
  passTo(
    context: ToolContext,
    end: (context: ToolContext, approval: ApprovalRecord | undefined, sink: OutcomeSink) => void,
    sink: OutcomeSink,
  ): void {
    if (!context.tool || context.call.invalidArguments) {
      end(context, undefined, sink);
      return;
    }
    const settled = this.#settled(context.tool);
    if ('decision' in settled) {
      this.#admitTo(context, end, sink, settled);
      return;
    }
    this.#ask(context, context.tool, settled.reason, settled.diff)
      .then((approval) => this.#admitTo(context, end, sink, approval))
      .catch((error: unknown) => sink.fail(error));
  }

  #admitTo(
    context: ToolContext,
    end: (context: ToolContext, approval: ApprovalRecord | undefined, sink: OutcomeSink) => void,
    sink: OutcomeSink,
    approval: ApprovalRecord,
  ): void {
    if (approval.decision !== 'denied') {
      end(context, approval, sink);
      return;
    }
    // Told after this turn of the queue, as a denial from `pass` is.
    const outcome = deniedOutcome(approval.reason ?? 'not approved', approval);
    queueMicrotask(() => sink.outcome(outcome));
  }

  #admit(
    context: ToolContext,
    end: (context: ToolContext, approval?: ApprovalRecord) => Promise<ToolOutcome>,
    approval: ApprovalRecord,
  ): Promise<ToolOutcome> {
    if (approval.decision === 'denied')
      return Promise.resolve(deniedOutcome(approval.reason ?? 'not approved', approval));
    return end(context, approval);
  }

  async decide(context: ToolContext, tool: RegisteredTool): Promise<ApprovalRecord> {
    const settled = this.#settled(tool);
    return 'decision' in settled ? settled : this.#ask(context, tool, settled.reason, settled.diff);
  }

  /**
   * The tools as the model may see them: the registry's definitions, except that a tool whose description or
   * schema changed since it was approved keeps its approved definition until it is approved again. Cached
   * per registry view and approval count, so a turn with nothing changed costs one lookup.
   */
  offered(registry: ToolRegistry, groups?: readonly string[]): readonly ToolDefinition[] {
    const definitions = registry.definitions(groups);
    if (this.#approved.size === 0) return definitions;
    const cached = this.#views.get(definitions);
    if (cached?.approvals === this.#approvals) return cached.view;
    const view = definitions.map((definition) => {
      const prior = this.#approved.get(definition.name);
      const current = prior && registry.get(definition.name);
      return current && current.fingerprint !== prior.fingerprint ? prior.offered : definition;
    });
    this.#views.set(definitions, { approvals: this.#approvals, view });
    return view;
  }

  /** The decision when config, policy or an earlier answer settles it; otherwise why someone must be asked. */
  #settled(tool: RegisteredTool): ApprovalRecord | { reason: 'policy' | 'changed'; diff?: string } {
    const configured = this.#configured(tool);
    if (configured === 'deny')
      return { decision: 'denied', by: 'config', reason: `${tool.server} config denies it` };
    const prior = this.#approved.get(tool.llmName);
    if (prior && prior.fingerprint !== tool.fingerprint) {
      return { reason: 'changed', diff: lineDiff(prior.definition, definitionText(tool)) };
    }
    if (prior?.always) return prior.record;
    if (configured === 'auto') return this.#remember(tool, { decision: 'approved', by: 'config' }, true);
    if (this.#policy === 'all' || this.#policyGlobs.matches(tool.llmName)) {
      return this.#remember(tool, { decision: 'approved', by: 'policy' }, true);
    }
    return { reason: 'policy' };
  }

  async #ask(
    context: ToolContext,
    tool: RegisteredTool,
    reason: 'policy' | 'changed',
    diff?: string,
  ): Promise<ApprovalRecord> {
    const why = reason === 'changed' ? 'the tool changed since it was approved' : 'approval required';
    if (!this.#options.approver) {
      return {
        decision: 'denied',
        by: 'non-interactive',
        reason: `${why} and no one is there to approve it`,
      };
    }
    const request: ApprovalRequest = {
      runId: context.runId,
      callId: context.call.id,
      tool,
      arguments: context.arguments,
      reason,
      ...(diff === undefined ? {} : { diff }),
    };
    const answer = await this.#options.approver(request, context.signal);
    if (answer === 'allow' || answer === 'always') {
      return this.#remember(tool, { decision: 'approved', by: 'user' }, answer === 'always');
    }
    return {
      decision: 'denied',
      by: 'user',
      reason: typeof answer === 'object' ? answer.deny : 'the user said no',
    };
  }

  #remember(tool: RegisteredTool, record: ApprovalRecord, always: boolean): ApprovalRecord {
    this.#approved.set(tool.llmName, {
      fingerprint: tool.fingerprint,
      definition: definitionText(tool),
      offered: { name: tool.llmName, description: tool.description, inputSchema: tool.inputSchema },
      record,
      always,
    });
    this.#approvals++;
    return record;
  }

  #configured(tool: RegisteredTool): 'auto' | 'deny' | 'ask' {
    const setting = this.#options.servers?.get(tool.server) ?? 'ask';
    if (typeof setting === 'string') return setting;
    if (setting.deny && new GlobSet(setting.deny).matches(tool.mcpName)) return 'deny';
    if (setting.auto && new GlobSet(setting.auto).matches(tool.mcpName)) return 'auto';
    return 'ask';
  }
}

function definitionText(tool: RegisteredTool): string {
  return JSON.stringify({ description: tool.description, inputSchema: tool.inputSchema }, null, 2);
}

/** A minimal line diff (longest common subsequence): `  ` same, `- ` before only, `+ ` now only. */
export function lineDiff(before: string, after: string): string {
  const a = before.split('\n');
  const b = after.split('\n');
  // The table is |a| x |b|; past that, show both sides whole rather than spend the memory.
  if (a.length * b.length > 250_000) return [...a.map((l) => `- ${l}`), ...b.map((l) => `+ ${l}`)].join('\n');
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push(`  ${a[i++]}`);
      j++;
    } else if (j < b.length && (i >= a.length || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) {
      out.push(`+ ${b[j++]}`);
    } else {
      out.push(`- ${a[i++]}`);
    }
  }
  return out.join('\n');
}
