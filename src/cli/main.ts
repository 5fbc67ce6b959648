#!/usr/bin/env node
/** The `agentforge` command: the composition root (nothing imports it). */
import { authCommand } from './auth.js';
import { chatCommand } from './chat.js';
import { configCommand } from './config.js';
import { demoCommand } from './demo.js';
import { EXIT, UsageError, isParseArgsError, reportError } from './errors.js';
import {
  AUTH_SPEC,
  CHAT_SPEC,
  CONFIG_SPEC,
  type CommandSpec,
  DEMO_SPEC,
  GATEWAY_SPEC,
  INIT_SPEC,
  PROMPTS_SPEC,
  RESOURCES_SPEC,
  RUN_SPEC,
  TOOLS_SPEC,
  commandHelp,
  mainHelp,
  unknownFlagMessage,
} from './help.js';
import { gatewayCommand } from './gateway.js';
import { initCommand } from './init.js';
import { Shutdown } from './lifecycle.js';
import { promptsCommand } from './prompts.js';
import { resourcesCommand } from './resources.js';
import { runCommand } from './run.js';
import { closest, didYouMean } from './suggest.js';
import { startTelemetry, stopTelemetry } from './telemetry.js';
import { toolsCommand } from './tools.js';
import { PACKAGE_VERSION } from '../util/version.js';

interface Command {
  readonly spec: CommandSpec;
  readonly run: (argv: string[], signal: AbortSignal) => Promise<number>;
}

/** Every command, in the order `--help` lists them. */
const COMMANDS: readonly Command[] = [
  { spec: RUN_SPEC, run: runCommand },
  { spec: CHAT_SPEC, run: chatCommand },
  { spec: TOOLS_SPEC, run: toolsCommand },
  { spec: RESOURCES_SPEC, run: resourcesCommand },
  { spec: PROMPTS_SPEC, run: promptsCommand },
  { spec: GATEWAY_SPEC, run: gatewayCommand },
  { spec: CONFIG_SPEC, run: configCommand },
  { spec: INIT_SPEC, run: initCommand },
  { spec: AUTH_SPEC, run: (argv) => authCommand(argv) },
  { spec: DEMO_SPEC, run: demoCommand },
];

const HELP = mainHelp(COMMANDS.map((c) => c.spec));

async function main(argv: string[], signal: AbortSignal): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    process.stderr.write(HELP);
    return EXIT.usage;
  }
  if (name === 'help' || name === '--help' || name === '-h') return help(rest[0]);
  if (name === '--version' || name === '-V' || name === 'version') {
    process.stdout.write(`${PACKAGE_VERSION}\n`);
    return EXIT.ok;
  }
  const command = COMMANDS.find((c) => c.spec.name === name);
  if (!command) {
    const what = name.startsWith('-') ? 'option' : 'command';
    const names = COMMANDS.map((c) => c.spec.name);
    throw new UsageError(`unknown ${what} ${JSON.stringify(name)}${didYouMean(name, [...names, 'help'])}`);
  }
  helpFor = name;
  const sub = subcommand(command.spec, rest);
  if (sub) helpFor = `${name} ${sub.name}`;
  const options = rest.slice(0, rest.includes('--') ? rest.indexOf('--') : rest.length);
  if (options.includes('--help') || options.includes('-h')) {
    process.stdout.write(commandHelp(sub ?? command.spec, sub ? command.spec : undefined));
    return EXIT.ok;
  }
  await startTelemetry(process.env, (line) => process.stderr.write(`${line}\n`));
  try {
    return await command.run(rest, signal);
  } catch (error) {
    throw withSuggestion(error, sub ?? command.spec, sub ? `${name} ${sub.name}` : name);
  } finally {
    await stopTelemetry();
  }
}

/** `agentforge help [command]`. */
function help(name: string | undefined): number {
  const command = COMMANDS.find((c) => c.spec.name === name);
  if (name !== undefined && !command)
    throw new UsageError(
      `unknown command ${JSON.stringify(name)}${didYouMean(
        name,
        COMMANDS.map((c) => c.spec.name),
      )}`,
    );
  process.stdout.write(command ? commandHelp(command.spec) : HELP);
  return EXIT.ok;
}

/** The subcommand named by the first argument (`tools list`); a mistyped one is a usage error. */
function subcommand(spec: CommandSpec, rest: readonly string[]): CommandSpec | undefined {
  const first = rest[0];
  if (!spec.subcommands || first === undefined || first.startsWith('-')) return undefined;
  const sub = spec.subcommands.find((s) => s.name === first);
  if (sub) return sub;
  const names = spec.subcommands.map((s) => s.name);
  const near = closest(first, names);
  const hint = near ? `did you mean "${spec.name} ${near}"?` : `${spec.name} has: ${names.join(', ')}`;
  throw new UsageError(`unknown command "${spec.name} ${first}"; ${hint}`);
}

/** parseArgs says "Unknown option '--jsn'. To specify a positional...": one line with the nearest flag. */
function withSuggestion(error: unknown, spec: CommandSpec, path: string): unknown {
  if (!isParseArgsError(error) || error.code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return error;
  const option = /'([^']+)'/.exec(error.message)?.[1];
  return option ? new UsageError(unknownFlagMessage(option, spec, path)) : error;
}

/** The command whose `--help` a usage error points to. */
let helpFor: string | undefined;

const debug = process.env.AGENTFORGE_DEBUG === '1' || /^(--verbose|-v)$/m.test(process.argv.join('\n'));
const shutdown = new Shutdown().install();
main(process.argv.slice(2), shutdown.signal).then(
  (code) => finish(code),
  // After a signal, whatever the command threw is the interruption itself: it was already announced.
  (error: unknown) => finish(shutdown.received ? 0 : failed(error)),
);

function failed(error: unknown): number {
  const code = reportError(error, debug);
  if (code === EXIT.usage)
    process.stderr.write(`run "agentforge ${helpFor ? `${helpFor} ` : ''}--help" for usage\n`);
  return code;
}

function finish(code: number): void {
  shutdown.dispose();
  process.exitCode = shutdown.exitCode ?? code;
}
