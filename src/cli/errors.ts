/**
 * How the CLI says what went wrong: one line per failure on stderr, prefixed `agentforge:` once, and an exit
 * code that tells a script what happened (documented in `agentforge --help`). A stack trace only with
 * `--verbose` or `AGENTFORGE_DEBUG=1`.
 */
import { AuthorizationError } from '../auth/client/errors.js';
import { ConfigError } from '../agent/config.js';
import { ModelError } from '../agent/model.js';
import { LocalError, RpcError } from '../jsonrpc/errors.js';

export const EXIT = {
  ok: 0,
  /** A tool error, a server the command needed that did not connect, a model or run failure. */
  failure: 1,
  /** Bad flags or arguments. */
  usage: 2,
  /** `run`: the model called tools and every call was denied (by policy or by the person asked). */
  allDenied: 3,
  /** `run`: the run hit `--max-steps` before the model answered. */
  maxSteps: 4,
} as const;

/** Shown in `agentforge --help`. */
export const EXIT_CODES_HELP = `exit codes:
  0    success
  1    failure: a tool returned an error, a server the command needed did not connect (crashed, or hung past
       the connect timeout), no configured server connected (run, chat), the model or the run failed
  2    usage: unknown command or flag, missing argument, no config found
  3    run: every tool call the model made was denied
  4    run: the run hit --max-steps before the model answered
  129, 130, 143   stopped by SIGHUP, SIGINT (Ctrl-C), SIGTERM`;

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** An expected failure the command has already put into words. */
export class CliFailure extends Error {
  override readonly name = 'CliFailure';
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failure,
  ) {
    super(message);
  }
}

/** One line: newlines in a peer's message (a stderr tail) would split it, so they become ` | `. */
export function oneLine(text: string): string {
  return text
    .replace(/^(agentforge:\s*)+/, '')
    .replace(/\s*\n+\s*/g, ' | ')
    .trim();
}

/** True for failures a user can act on from the message alone (no stack needed). */
export function isExpected(error: unknown): boolean {
  return (
    error instanceof UsageError ||
    error instanceof CliFailure ||
    error instanceof ConfigError ||
    error instanceof ModelError ||
    error instanceof LocalError ||
    error instanceof RpcError ||
    error instanceof AuthorizationError ||
    isParseArgsError(error)
  );
}

export function isParseArgsError(error: unknown): error is Error & { code: string } {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}

/** The message of any thrown value, on one line. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return oneLine(error.message || error.name);
  return oneLine(String(error));
}

/**
 * A failed request to a server, in the server's name: `server "crashy" exited with code 3 during tools/call
 * crash; stderr: ...` (the transport's message names the command, which the person did not type).
 */
export function serverFailure(server: string, request: string, error: unknown): string {
  if (error instanceof LocalError && error.code === 'process_exited') {
    const data = (error.data ?? {}) as { code?: number | null; signal?: string | null; stderr?: string };
    const how = data.signal ? `was killed by ${data.signal}` : `exited with code ${data.code ?? '?'}`;
    const tail = data.stderr ? `; stderr: ${data.stderr}` : '';
    return oneLine(`server "${server}" ${how} during ${request}${tail}`);
  }
  if (error instanceof RpcError) return oneLine(`server "${server}" rejected ${request}: ${error.message}`);
  return oneLine(`server "${server}": ${request} failed: ${messageOf(error)}`);
}

/** Prints one line for the failure (and the stack when debugging) and returns the exit code. */
export function reportError(error: unknown, debug: boolean): number {
  const usage = error instanceof UsageError || isParseArgsError(error);
  const expected = isExpected(error);
  const name = error instanceof Error && !expected ? `${error.name}: ` : '';
  process.stderr.write(`agentforge: ${name}${messageOf(error)}\n`);
  if (debug && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  else if (!expected) process.stderr.write('(an unexpected error: AGENTFORGE_DEBUG=1 shows the stack)\n');
  if (usage) return EXIT.usage;
  return error instanceof CliFailure ? error.exitCode : EXIT.failure;
}
