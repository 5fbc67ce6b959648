/**
 * The CLI's one readline interface: chat input, approval questions and elicitation forms all go through
 * it, so they never fight over stdin.
 */
import { createInterface, type Interface } from 'node:readline';
import { Writable } from 'node:stream';
import type { ApprovalAnswer, ApprovalRequest } from '../agent/approval.js';
import type { CreateMessageRequestParams, ElicitRequestParams, ElicitResult } from '../mcp/types.js';

/** Whatever else draws on the terminal, kept off it while a dialogue is open (see activity.ts). */
export interface Display {
  dialogue<T>(run: () => Promise<T>): Promise<T>;
}

/**
 * Readline's output on a terminal, open only while a question waits for its answer: keys typed ahead while
 * the agent works are kept (they answer the next question) but not echoed into the progress rows.
 */
class EchoGate extends Writable {
  open = false;

  constructor(readonly target: NodeJS.WritableStream) {
    super();
    target.on('resize', () => this.emit('resize'));
  }

  get isTTY(): boolean {
    return (this.target as { isTTY?: boolean }).isTTY === true;
  }

  get columns(): number | undefined {
    return (this.target as { columns?: number }).columns;
  }

  get rows(): number | undefined {
    return (this.target as { rows?: number }).rows;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    if (this.open) this.target.write(chunk);
    callback();
  }
}

export class Terminal {
  readonly #rl: Interface;
  readonly #display: Display | undefined;
  readonly #echo: EchoGate | undefined;
  #closed = false;
  /** Lines typed (or piped) before anyone asked; piped input arrives all at once and must not be lost. */
  readonly #lines: string[] = [];
  readonly #waiting: Array<(line: string | undefined) => void> = [];
  #dialogues: Promise<void> = Promise.resolve();

  constructor(
    readonly input: NodeJS.ReadableStream = process.stdin,
    readonly output: NodeJS.WritableStream = process.stderr,
    display?: Display,
  ) {
    this.#display = display;
    const terminal = Boolean((input as { isTTY?: boolean }).isTTY);
    this.#echo = terminal ? new EchoGate(output) : undefined;
    this.#rl = createInterface({ input, output: this.#echo ?? output, terminal });
    this.#rl.on('line', (line) => {
      const next = this.#waiting.shift();
      if (next) next(line);
      else this.#lines.push(line);
    });
    // On a terminal in raw mode Ctrl-C is a keypress, not a signal: readline reports it here, and without a
    // listener it would only pause input. Raise the real SIGINT, so one handler decides for every case.
    this.#rl.on('SIGINT', () => process.kill(process.pid, 'SIGINT'));
    this.#rl.on('close', () => {
      this.#closed = true;
      for (const resolve of this.#waiting.splice(0)) resolve(undefined);
    });
  }

  /** Asks and waits for a line; undefined when input has ended (Ctrl-D) or the signal aborted. */
  question(prompt: string, signal?: AbortSignal): Promise<string | undefined> {
    this.output.write(prompt);
    const queued = this.#lines.shift();
    if (queued !== undefined) {
      // Typed ahead on a terminal: shown now, as the answer it becomes (a pipe's input is not echoed).
      if (this.#echo) this.output.write(`${queued}\n`);
      return Promise.resolve(queued);
    }
    if (this.#closed || signal?.aborted) return Promise.resolve(undefined);
    const echo = this.#echo;
    if (echo) echo.open = true;
    return new Promise((resolve) => {
      const done = (line: string | undefined) => {
        const at = this.#waiting.indexOf(done);
        if (at >= 0) this.#waiting.splice(at, 1);
        signal?.removeEventListener('abort', onAbort);
        if (echo && this.#waiting.length === 0) echo.open = false;
        resolve(line);
      };
      const onAbort = () => done(undefined);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(done);
    });
  }

  /** The approval prompt (see `askApproval`), one dialogue at a time. */
  approve(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    return this.#exclusive(() => this.#askApproval(request, signal));
  }

  /** An elicitation form (see `askForm`), one dialogue at a time. */
  elicit(server: string, params: ElicitRequestParams, signal: AbortSignal): Promise<ElicitResult> {
    return this.#exclusive(() => this.#askForm(server, params, signal));
  }

  /** client/sampling: a server wants to use the agent's model; the person decides. */
  approveSampling(server: string, params: CreateMessageRequestParams, signal: AbortSignal): Promise<boolean> {
    return this.#exclusive(() => this.#askSampling(server, params, signal));
  }

  /**
   * Runs one dialogue at a time: parallel tool calls may ask together, and each question must be printed
   * and answered whole before the next one starts; meanwhile the display holds back everything else.
   */
  #exclusive<T>(dialogue: () => Promise<T>): Promise<T> {
    const display = this.#display;
    const turn = this.#dialogues.then(() => (display ? display.dialogue(dialogue) : dialogue()));
    this.#dialogues = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
  }

  write(text: string): void {
    this.output.write(text);
  }

  close(): void {
    this.#rl.close();
  }

  /** The tool, its server, the arguments, hints, and a diff when the tool changed. */
  async #askApproval(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    const { tool } = request;
    const lines = [
      '',
      `? Approve tool call ${tool.llmName} (server "${tool.server}", tool "${tool.mcpName}")`,
      `  arguments: ${JSON.stringify(request.arguments)}`,
    ];
    const hints = Object.entries(tool.annotations ?? {})
      .filter(([key, value]) => key !== 'title' && value !== undefined)
      .map(([key, value]) => `${key}=${String(value)}`);
    if (hints.length > 0) lines.push(`  server hints (not verified): ${hints.join(', ')}`);
    if (request.reason === 'changed' && request.diff) {
      lines.push('  ! this tool changed since you approved it:');
      for (const line of request.diff.split('\n')) if (!line.startsWith('  ')) lines.push(`    ${line}`);
    }
    this.write(`${lines.join('\n')}\n`);
    for (;;) {
      const answer = (await this.question('  allow? [y]es / [n]o / [a]lways: ', signal))
        ?.trim()
        .toLowerCase();
      if (answer === undefined) return { deny: 'no answer (input closed)' };
      if (answer === 'y' || answer === 'yes') return 'allow';
      if (answer === 'a' || answer === 'always') return 'always';
      if (answer === 'n' || answer === 'no' || answer === '') return 'deny';
    }
  }

  async #askSampling(
    server: string,
    params: CreateMessageRequestParams,
    signal: AbortSignal,
  ): Promise<boolean> {
    const first = params.messages[0]?.content as { type?: string; text?: string } | undefined;
    const text = first?.type === 'text' ? String(first.text) : `[${String(first?.type)} content]`;
    this.write(
      `\n? Server "${server}" asks to use the model (${params.messages.length} message(s), up to ${params.maxTokens} tokens):\n`,
    );
    this.write(`  ${text.length > 300 ? `${text.slice(0, 300)}…` : text}\n`);
    const answer = await this.question('  allow? [y]es / [n]o: ', signal);
    return answer?.trim().toLowerCase().startsWith('y') === true;
  }

  /** An elicitation form, one question per field of the requested schema (flat, as the spec limits it). */
  async #askForm(server: string, params: ElicitRequestParams, signal: AbortSignal): Promise<ElicitResult> {
    this.write(`\n? Server "${server}" asks: ${params.message}\n`);
    if (params.mode === 'url') {
      this.write(`  open: ${params.url ?? '(no url)'}\n`);
      const ok = await this.question('  done? [y]es / [n]o: ', signal);
      return { action: ok?.trim().toLowerCase().startsWith('y') ? 'accept' : 'decline' };
    }
    const schema = (params.requestedSchema ?? {}) as {
      properties?: Record<string, any>;
      required?: string[];
    };
    const content: Record<string, string | number | boolean> = {};
    for (const [name, field] of Object.entries(schema.properties ?? {})) {
      const label = field?.title ?? name;
      const choices = Array.isArray(field?.enum) ? ` (${field.enum.join('/')})` : '';
      const raw = await this.question(`  ${label}${choices}: `, signal);
      if (raw === undefined) return { action: 'cancel' };
      if (raw === '' && !schema.required?.includes(name)) continue;
      content[name] = coerce(raw, field?.type);
    }
    const confirm = await this.question('  send? [y]es / [n]o: ', signal);
    return confirm?.trim().toLowerCase().startsWith('y')
      ? { action: 'accept', content }
      : { action: 'decline' };
  }
}

function coerce(raw: string, type: unknown): string | number | boolean {
  if (type === 'number' || type === 'integer') return Number(raw);
  if (type === 'boolean') return /^(y|yes|true|1)$/i.test(raw.trim());
  return raw;
}
