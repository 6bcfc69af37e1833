/** The runner of every kind `tai spawn --kind` accepts. */
import { runAcp } from './acp.js';
import { runCap } from './cap.js';
import { runClaude } from './claude.js';
import { runCodex } from './codex.js';
import { runCommand } from './command.js';
import type { Runner, RunnerKind } from './runner.js';

/** Each kind's runner. */
export const DEFAULT_RUNNERS: Readonly<Record<RunnerKind, Runner>> = {
  command: runCommand,
  acp: runAcp,
  claude: runClaude,
  codex: runCodex,
  cap: runCap,
};
