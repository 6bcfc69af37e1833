/**
 * The checks of `tai spawn`'s line that must hold the same inside a cockpit
 * and outside one: each answers with the reason a bad line gets (said with
 * the usage and exit 64 by spawn.ts), before any cockpit is asked, so a
 * cockpit's refusal never turns a bad line into a failed agent's exit 1.
 */
import { RequestError } from '../../core/errors.js';
import { isLaneName, LaneNameError } from '../../core/lanes/lane-name.js';
import { RETRIES_MAX, wallClock } from '../../io/agents/agent-jobs.js';

/**
 * Why `--lane`'s value is refused, or undefined. The word after `--lane` is its value unless `--`, an option or
 * `@agent` (as tmux and claude-squad read one): a word that is no lane name is refused, never run as a program.
 */
export function laneProblem(args: readonly string[]): string | undefined {
  const end = args.indexOf('--');
  const head = end < 0 ? args : args.slice(0, end);
  for (let i = 0; i < head.length; i++) {
    const arg = head[i] ?? '';
    const value = arg.startsWith('--lane=') ? arg.slice('--lane='.length) : arg === '--lane' ? head[i + 1] : undefined;
    if (value === undefined || value === '' || (arg === '--lane' && (value.startsWith('-') || value.startsWith('@')))) continue;
    if (!isLaneName(value)) return `--lane ${new LaneNameError(value).message}; to run it as the agent, put the command after --`;
  }
  return undefined;
}

/** Why `--timeout` or `--retries` is out of the range a cockpit takes, or undefined. */
export function rangeProblem(timeout: number | undefined, timeoutText: string | undefined, retries: number | undefined): string | undefined {
  if (timeout !== undefined) {
    try {
      wallClock(timeout);
    } catch (err) {
      if (!(err instanceof RequestError)) throw err;
      return `--${err.message}, got '${timeoutText ?? ''}'`;
    }
  }
  if (retries !== undefined && retries > RETRIES_MAX) return `--retries takes a whole number from 0 to ${RETRIES_MAX}, got ${retries}`;
  return undefined;
}

/** Why the prompt is refused: one given empty (`--prompt ''`), or an agent by name with none at all; else undefined. */
export function promptProblem(prompt: string | undefined, given: boolean, named: string | undefined): string | undefined {
  const empty = prompt === undefined || prompt.trim() === '';
  if (given && empty) return "--prompt is empty: give the agent's task (or leave --prompt out to read it from stdin)";
  if (named !== undefined && empty) return `@${named} needs a prompt: after the name, with --prompt, or on stdin`;
  return undefined;
}

/**
 * The stderr line when a script's spawn in a cockpit gets no questions: at a terminal the default is to ask, with
 * stdin redirected to reject; a command agent asks nothing. Undefined when nothing changes.
 */
export function policyNote(request: { readonly kind: string; readonly permissions?: string; readonly allow?: boolean }, inCockpit: boolean, stdinIsTerminal: boolean): string | undefined {
  if (!inCockpit || stdinIsTerminal || request.kind === 'command' || request.permissions !== undefined || request.allow === true) return undefined;
  return "stdin is not a terminal, so the agent's permission requests are rejected (--permissions ask puts them to you in the cockpit, --allow accepts them)";
}

/**
 * Outside a cockpit nobody can be asked, so `ask` would wait for ever: it is `reject`, and said. The line to say,
 * or undefined when the request asks nothing of anyone.
 */
export function askWithoutCockpit(request: { readonly kind: string; readonly permissions?: string }, inCockpit: boolean): string | undefined {
  if (inCockpit || request.kind === 'command' || request.permissions !== 'ask') return undefined;
  return "no cockpit to put the agent's permission requests to you, so they are rejected (run tai spawn inside tai to be asked, or pass --allow)";
}
