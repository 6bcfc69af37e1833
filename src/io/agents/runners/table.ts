/** The runner of every kind `tai spawn --kind` accepts. */
import { acpRunner, runAcp } from './acp.js';
import type { AcpSessionPool } from './acp-pool.js';
import { runCap } from './cap.js';
import { runClaude } from './claude.js';
import { runCodex } from './codex.js';
import { runCommand } from './command.js';
import type { Runner, RunnerKind } from './runner.js';

/** Each kind's runner; without a session pool, `acp` ends its agent after every turn. */
export const DEFAULT_RUNNERS: Readonly<Record<RunnerKind, Runner>> = {
  command: runCommand,
  acp: runAcp,
  claude: runClaude,
  codex: runCodex,
  cap: runCap,
};

/** The default runners with `acp` keeping sessions in `pool` for spawns that name a session key. */
export function runnersWithSessions(pool: AcpSessionPool): Readonly<Record<RunnerKind, Runner>> {
  return { ...DEFAULT_RUNNERS, acp: acpRunner(pool) };
}
