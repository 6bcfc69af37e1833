/**
 * The one command-line reader of every subcommand: `parseArgs` with positionals, `--help` answered on stdout, a
 * bad line said one way (`tai NAME: why`, the usage, USAGE_EXIT), Node's parse errors reworded, never raw. A
 * subcommand running the user's command reads its options only up to it (`command: true`), so `tai net git push
 * --force` passes `--force` to git.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { messageOf } from '../core/errors.js';
import type { CliOutput } from './output.js';
import { field } from './output.js';

/** The exit code for a command line that makes no sense (sysexits EX_USAGE; 2 means no cockpit). */
export const USAGE_EXIT = 64;

type Options = NonNullable<ParseArgsConfig['options']>;

/** What a subcommand's line may hold: its name (for `tai NAME: why`), usage text and options (`help`/`-h` are added). */
export interface CommandSpec<O extends Options> {
  readonly name: string;
  readonly usage: string;
  readonly options: O;
  /** Options end at the first positional or `--`; the rest is a command of the user's, unread. */
  readonly command?: boolean;
}

type Parsed<O extends Options> = ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: true }>>;

/** A line read: its option values, its positionals and (with `command: true`) the user's command. */
export interface CommandLine<O extends Options> {
  readonly values: Parsed<O>['values'];
  readonly positionals: string[];
  readonly command: string[];
}

/**
 * The line read, or the exit code once it was answered: 0 after the usage for
 * `--help`/`-h`, USAGE_EXIT after `tai NAME: why` and the usage on stderr.
 */
export function readCommandLine<const O extends Options>(
  spec: CommandSpec<O>,
  args: readonly string[],
  out: CliOutput,
): CommandLine<O> | number {
  const options: Options = { ...spec.options, help: { type: 'boolean', short: 'h' } };
  const [head, command] = spec.command ? splitCommand(args, options) : [[...args], []];
  let parsed;
  try {
    parsed = parseArgs({ args: head, options, allowPositionals: !spec.command, strict: true });
  } catch (err) {
    if (head.includes('--help') || head.includes('-h')) return help(spec, out);
    return usageError(spec, out, reason(err));
  }
  const { help: wantsHelp, ...values } = parsed.values as Record<string, unknown>;
  if (wantsHelp === true) return help(spec, out);
  return { values: values as Parsed<O>['values'], positionals: parsed.positionals, command };
}

/** Says `tai NAME: why` and the usage on stderr; returns USAGE_EXIT. */
export function usageError(spec: { readonly name: string; readonly usage: string }, out: CliOutput, why: string): number {
  out.warn(`${spec.name === 'tai' ? 'tai' : `tai ${spec.name}`}: ${field(why)}\n${spec.usage}`);
  return USAGE_EXIT;
}

/** A command line's values that make no sense together or alone; its message is the reason usageError says. */
export class CommandLineError extends Error {
  override readonly name = 'CommandLineError';
}

/** A whole number of at least `min` from option `--flag`'s text (undefined when absent); a CommandLineError with the reason otherwise. */
export function wholeNumber(flag: string, text: string | undefined, min = 0): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[-+]?\d+$/.test(text.trim())) throw new CommandLineError(`--${flag} takes a whole number, got '${text}'`);
  const n = Number(text);
  if (n < min) throw new CommandLineError(`--${flag} must be ${min} or more, got ${text}`);
  return n;
}

/** Runs `body` and answers its CommandLineError with usageError (USAGE_EXIT); anything else goes on up. */
export async function answeringBadLines(spec: { readonly name: string; readonly usage: string }, out: CliOutput, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (err) {
    if (err instanceof CommandLineError) return usageError(spec, out, err.message);
    throw err;
  }
}

/** Why `id` (and `extra`) is not one agent id, or undefined when it is one (`tai poll`, `tai cancel`, `tai logs`). */
export function agentIdProblem(id: string | undefined, extra: readonly string[] = []): string | undefined {
  if (id === undefined) return 'missing agent id (the number `tai status` shows: 3 for #3)';
  if (extra.length > 0) return `one agent id, not ${[id, ...extra].length}: ${[id, ...extra].join(' ')}`;
  if (!/^[1-9]\d*$/.test(id)) return `not an agent id: '${id}' (a whole number from 1: 3 for #3 in \`tai status\`)`;
  return undefined;
}

function help(spec: { readonly usage: string }, out: CliOutput): number {
  out.say(spec.usage);
  return 0;
}

/** The options part and the command part of `args`: the command starts at `--` (dropped) or the first positional. */
function splitCommand(args: readonly string[], options: Options): [string[], string[]] {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    if (a === '--') return [args.slice(0, i), args.slice(i + 1)];
    if (!a.startsWith('-') || a === '-') return [args.slice(0, i), args.slice(i)];
    if (!a.includes('=') && takesValue(a, options)) i++;
  }
  return [[...args], []];
}

function takesValue(flag: string, options: Options): boolean {
  const entry = flag.startsWith('--')
    ? options[flag.slice(2)]
    : Object.values(options).find((o) => o.short !== undefined && `-${o.short}` === flag);
  return entry?.type === 'string';
}

/** Node's parse error as the short reason a user reads. */
function reason(err: unknown): string {
  const message = messageOf(err);
  const code = (err as { code?: unknown }).code;
  const quoted = /'([^']*)'/.exec(message)?.[1] ?? '';
  const flag = quoted.replace(/ <value>$/, '').split(', ').at(-1) ?? quoted;
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option '${quoted}'`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument '${quoted}'`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (/does not take an argument/.test(message)) return `${flag} takes no value`;
      if (/ambiguous/.test(message)) return `${flag} needs a value (for one that starts with '-', write ${flag}=VALUE)`;
      return `${flag} needs a value`;
    default:
      return message.split('. ')[0] ?? message;
  }
}
