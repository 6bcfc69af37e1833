/**
 * What the CLI prints, through one sanitizer (docs/spec.md, "Formatter and sanitizing"): an agent, a registry
 * file or a socket client controls much of it, and none may retitle the terminal or ask it a question. So every
 * subcommand writes through a CliOutput (test/cli/output.test.ts reads src/cli for a stray write); the rules by
 * what is printed, and the two named exceptions: docs/security.md, "One sanitizer, at every output".
 */
import { sanitize, sanitizeLine, stripSgr } from '../core/text/sanitize.js';
import { maskSecrets } from '../core/text/secrets.js';

/** Where a subcommand's text goes: the two streams and whether a terminal reads each. */
export interface CliSinks {
  out(text: string): void;
  err(text: string): void;
  /** True when stdout is a terminal (SGR is kept); absent means a pipe or a file. */
  readonly outIsTerminal?: boolean;
  /** True when stderr is a terminal. */
  readonly errIsTerminal?: boolean;
}

/** The real process's streams, looked up at each write (a test may replace `write`). */
export const processSinks: CliSinks = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  get outIsTerminal() {
    return process.stdout.isTTY === true;
  },
  get errIsTerminal() {
    return process.stderr.isTTY === true;
  },
};

/** An agent's (or a label's, or a socket client's) value for a one-line field: sanitized, no SGR, one line, secrets masked. */
export function field(text: string): string {
  return maskSecrets(sanitizeLine(text));
}

/** Text of several lines, each line a `field` (tai's own lines that name paths or values from outside, such as the cockpits found). */
export function fieldLines(text: string): string {
  return text.split('\n').map(field).join('\n');
}

/**
 * JSON text with DEL, the C1 controls and the characters that reorder or hide text (the sanitizer's `<U+202E>`
 * set) escaped too, so it is safe on a terminal and parses to the same value.
 */
export function jsonText(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\u009f\u061c\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The CLI's output: every write sanitized for the stream it goes to. */
export class CliOutput {
  constructor(readonly sinks: CliSinks = processSinks) {}

  /** tai's text on stdout (agents' values in it already through `field`). */
  say(text: string): void {
    this.sinks.out(clean(text, this.sinks.outIsTerminal === true));
  }

  /** tai's text on stderr. */
  warn(text: string): void {
    this.sinks.err(clean(text, this.sinks.errIsTerminal === true));
  }

  /** An agent's result or a record's text on stdout: sanitized, or its exact bytes when `raw` (`--raw`). */
  result(text: string, raw: boolean): void {
    this.sinks.out(raw ? text : clean(text, this.sinks.outIsTerminal === true));
  }

  /** One value as a JSON line on stdout. */
  json(value: unknown): void {
    this.sinks.out(`${jsonText(value)}\n`);
  }

  /** The outage's bell and OSC 9 on stderr, only when it is a terminal (the one deliberate escape sequence tai prints). */
  notifier(): ((bytes: string) => void) | undefined {
    return this.sinks.errIsTerminal === true ? (bytes) => this.sinks.err(bytes) : undefined;
  }

  /**
   * An attached spawn's live status line on stderr (src/cli/spawn/spawn-status.ts), at a terminal only: to the line's
   * start, erase it, then `line` as one sanitized field; with the notifier, the only escapes tai itself prints.
   */
  statusLine(line: string): void {
    if (this.sinks.errIsTerminal === true) this.sinks.err(`${ERASE_LINE}${field(line)}`);
  }

  /** Erases the live status line (before other output, and at the end). */
  eraseStatus(): void {
    if (this.sinks.errIsTerminal === true) this.sinks.err(ERASE_LINE);
  }

  /** `tai net`'s own command's stderr, passed through as it comes (the user's command, on the user's terminal; decoded by the caller). */
  passStderr(chunk: string): void {
    this.sinks.err(chunk);
  }
}

/** Back to the start of the line and erase it (CR, then CSI 2 K). */
const ERASE_LINE = '\r\x1b[2K';

/** Sanitized text, its SGR kept only for a terminal. */
function clean(text: string, terminal: boolean): string {
  const safe = sanitize(text);
  return terminal ? safe : stripSgr(safe);
}

/** The output of the real process. */
export const processOutput = new CliOutput();
