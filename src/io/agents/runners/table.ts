/** The runner of every kind `tai spawn --kind` accepts (AGENT_KINDS, src/core/agents/agent-registry.ts). */
import type { AgentKind } from '../../../core/agents/agent-registry.js';
import { acpRunner, runAcp } from './acp/acp.js';
import type { AcpSessionPool } from './acp/acp-pool.js';
import { runCap } from './cap.js';
import { runClaude } from './claude.js';
import { runCodex } from './codex.js';
import { runCommand } from './command.js';
import type { Runner } from './runner.js';

/** Each kind's runner; without a session pool, `acp` ends its agent after every turn. */
export const DEFAULT_RUNNERS: Readonly<Record<AgentKind, Runner>> = {
  command: runCommand,
  acp: runAcp,
  claude: runClaude,
  codex: runCodex,
  cap: runCap,
};

/** The default runners with `acp` keeping sessions in `pool` for spawns that name a session key. */
export function runnersWithSessions(pool: AcpSessionPool): Readonly<Record<AgentKind, Runner>> {
  return { ...DEFAULT_RUNNERS, acp: acpRunner(pool) };
}
