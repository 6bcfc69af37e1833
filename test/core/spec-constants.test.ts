import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as commandLine from '../../src/cli/command-line.js';
import * as outageCli from '../../src/cli/outage.js';
import * as netCli from '../../src/cli/net.js';
import * as waitCli from '../../src/cli/wait.js';
import * as claimCheck from '../../src/core/agents/claim-check.js';
import * as registry from '../../src/core/agents/agent-registry.js';
import * as questions from '../../src/core/agents/questions.js';
import * as transcriptCap from '../../src/core/agents/transcript-cap.js';
import * as lines from '../../src/core/decoders/lines.js';
import * as audit from '../../src/core/inbox/audit.js';
import * as rules from '../../src/core/inbox/rules.js';
import * as keys from '../../src/core/input/keys.js';
import * as mentionLine from '../../src/core/input/mention-line.js';
import * as prefixChoice from '../../src/core/input/prefix-choice.js';
import * as dropRecord from '../../src/core/lanes/drop-record.js';
import * as laneName from '../../src/core/lanes/lane-name.js';
import * as leadView from '../../src/core/lead/lead-view.js';
import * as linkFrames from '../../src/core/protocol/link-frames.js';
import * as requestLines from '../../src/core/protocol/request-lines.js';
import * as hostName from '../../src/core/remote/host-name.js';
import * as hostSlots from '../../src/core/remote/host-slots.js';
import * as remoteReaper from '../../src/core/remote/remote-reaper.js';
import * as screenBound from '../../src/core/screen-bound.js';
import * as agentJobs from '../../src/io/agents/agent-jobs.js';
import * as agentResults from '../../src/io/agents/agent-results.js';
import * as acpPool from '../../src/io/agents/runners/acp/acp-pool.js';
import * as acpSteer from '../../src/io/agents/runners/acp/acp-steer.js';
import * as resultText from '../../src/io/agents/runners/result-text.js';
import * as startable from '../../src/io/agents/spawn/startable.js';
import * as copyView from '../../src/io/cockpit/keys/copy-view.js';
import * as mainProgram from '../../src/io/cockpit/main/main-program.js';
import * as notifier from '../../src/io/cockpit/notifier.js';
import * as keyBacklog from '../../src/io/link/key-backlog.js';
import * as linkClient from '../../src/io/link/link-client.js';
import * as linkConnection from '../../src/io/link/link-connection.js';
import * as httpPost from '../../src/io/notify/http-post.js';
import * as webhookSender from '../../src/io/notify/webhook-sender.js';
import * as agentOutages from '../../src/io/outage/agent-outages.js';
import * as outageNotify from '../../src/io/outage/notify.js';
import * as outageWait from '../../src/io/outage/outage-wait.js';
import * as probes from '../../src/io/outage/probes.js';
import * as remoteRun from '../../src/io/remote/remote-run.js';
import * as remoteSpawn from '../../src/io/remote/remote-spawn.js';
import * as sshArgv from '../../src/io/remote/ssh-argv.js';
import * as socketServer from '../../src/io/socket/socket-server.js';
import * as agentSlots from '../../src/io/storage/agent-slots.js';
import * as askLog from '../../src/io/storage/ask-log.js';
import * as log from '../../src/io/storage/log.js';
import * as records from '../../src/io/storage/records.js';
import * as stateDb from '../../src/io/storage/state-db.js';
import * as storedStatus from '../../src/io/storage/stored-status.js';

/**
 * docs/spec.md, "Constants": the contract limits defined outside src/core/policy.ts
 * (test/core/policy.test.ts has those), each row naming its file; and "Switches and environment".
 */
const ROOT = new URL('../../', import.meta.url);
const SPEC = readFileSync(new URL('docs/spec.md', ROOT), 'utf8');
const README = readFileSync(new URL('README.md', ROOT), 'utf8');

/** Each file's module, and the contract constants it defines: every one has its row. */
const CONTRACT: Record<string, readonly [Record<string, unknown>, readonly string[]]> = {
  'cli/command-line.ts': [commandLine, ['USAGE_EXIT']],
  'cli/outage.ts': [outageCli, ['OUTAGE_GAVE_UP_EXIT']],
  'cli/net.ts': [netCli, ['NET_NOT_FOUND_EXIT', 'NET_INTERRUPTED_EXIT']],
  'cli/wait.ts': [waitCli, ['EXIT_NOTHING_ENDED', 'EXIT_ASKING']],
  'core/agents/claim-check.ts': [claimCheck, ['CLAIM_HEAD', 'CLAIM_TAIL']],
  'core/agents/agent-registry.ts': [registry, ['AGENT_NAME_MAX']],
  'core/agents/questions.ts': [questions, ['QUESTIONS_PER_AGENT_MAX']],
  'core/agents/transcript-cap.ts': [transcriptCap, ['TRANSCRIPT_MAX_BYTES']],
  'core/decoders/lines.ts': [lines, ['AGENT_LINE_MAX']],
  'core/inbox/audit.ts': [audit, ['AUDIT_ARGS_MAX']],
  'core/inbox/rules.ts': [rules, ['RULES_MAX', 'RULE_LIFE_MAX_MS', 'RULE_KEY_MINUTES']],
  'core/input/keys.ts': [keys, ['PREFIX_TIMEOUT_MS']],
  'core/input/mention-line.ts': [mentionLine, ['LINE_MAX']],
  'core/input/prefix-choice.ts': [prefixChoice, ['PREFIX_EXIT']],
  'core/lanes/drop-record.ts': [dropRecord, ['DROP_KEEP_DAYS']],
  'core/lanes/lane-name.ts': [laneName, ['LANE_NAME_MAX']],
  'core/lead/lead-view.ts': [leadView, ['LEAD_REPLY_MAX', 'WAIT_DEFAULT_S', 'WAIT_MAX_S']],
  'core/protocol/link-frames.ts': [linkFrames, ['LINK_VERSION', 'LINK_HELLO_MAX', 'LINK_FRAME_MAX']],
  'core/protocol/request-lines.ts': [requestLines, ['REQUEST_LINE_MAX']],
  'core/remote/host-name.ts': [hostName, ['HOST_MAX']],
  'core/remote/host-slots.ts': [hostSlots, ['HOST_FULL_EXIT']],
  'core/remote/remote-reaper.ts': [remoteReaper, ['REMOTE_BEAT_S', 'REMOTE_SPOOL_BYTES']],
  'core/screen-bound.ts': [screenBound, ['LAYOUT_COLS_MAX', 'LAYOUT_ROWS_MAX']],
  'io/agents/agent-jobs.ts': [agentJobs, ['RETRIES_MAX']],
  'io/agents/agent-results.ts': [agentResults, ['EXIT_STORAGE', 'EXIT_REFUSED']],
  'io/agents/runners/acp/acp-pool.ts': [acpPool, ['ACP_SESSION_IDLE_MS', 'ACP_SESSIONS_IDLE_MAX']],
  'io/agents/runners/acp/acp-steer.ts': [acpSteer, ['STEER_QUEUE_MAX']],
  'io/agents/runners/result-text.ts': [resultText, ['RESULT_MAX']],
  'io/agents/spawn/startable.ts': [startable, ['CANNOT_START_EXIT']],
  'io/cockpit/keys/copy-view.ts': [copyView, ['COPY_MAX']],
  'io/cockpit/main/main-program.ts': [mainProgram, ['NOT_FOUND_EXIT']],
  'io/cockpit/notifier.ts': [notifier, ['NOTIFY_HOOK_TIMEOUT_MS']],
  'io/link/key-backlog.ts': [keyBacklog, ['KEYS_WAITING_MAX']],
  'io/link/link-client.ts': [linkClient, ['CLIENT_FRAME_MAX']],
  'io/link/link-connection.ts': [linkConnection, ['LINK_CLIENTS_MAX', 'LINK_CONNECTIONS_MAX', 'LINK_HELLO_DEADLINE_MS', 'CLIENT_BEHIND_MAX']],
  'io/notify/http-post.ts': [httpPost, ['WEBHOOK_TIMEOUT_MS']],
  'io/notify/webhook-sender.ts': [webhookSender, ['WEBHOOK_QUEUE_LIMIT']],
  'io/outage/agent-outages.ts': [agentOutages, ['OUTAGE_RESTARTS_MAX']],
  'io/outage/notify.ts': [outageNotify, ['NOTIFY_COMMAND_TIMEOUT_MS']],
  'io/outage/outage-wait.ts': [outageWait, ['OUTAGE_PROBE_LEASE_MS', 'OUTAGE_WAKE_UP_MS']],
  'io/outage/probes.ts': [probes, ['PROBE_TIMEOUT_MS']],
  'io/remote/remote-run.ts': [remoteRun, ['REMOTE_LOST_EXIT']],
  'io/remote/remote-spawn.ts': [remoteSpawn, ['HOST_UNREACHABLE_EXIT']],
  'io/remote/ssh-argv.ts': [sshArgv, ['CONNECT_TIMEOUT_S']],
  'io/socket/socket-server.ts': [socketServer, ['CONTROL_REPLY_MAX_BYTES', 'CONTROL_CONNECTIONS_MAX', 'CONTROL_IDLE_TIMEOUT_MS', 'CONTROL_REQUEST_DEADLINE_MS']],
  'io/storage/agent-slots.ts': [agentSlots, ['SLOT_LEASE_MS', 'SLOT_RENEW_MS']],
  'io/storage/ask-log.ts': [askLog, ['ASK_LOG_KEEP']],
  'io/storage/log.ts': [log, ['LOG_MAX_BYTES']],
  'io/storage/records.ts': [records, ['RECORDS_MAX_AGE_DAYS', 'RECORDS_MAX_CHARS']],
  'io/storage/state-db.ts': [stateDb, ['STATE_DB_BUSY_TIMEOUT_MS', 'STATE_DB_WAIT_MS']],
  'io/storage/stored-status.ts': [storedStatus, ['STORED_STATUS_MAX']],
};

/** Milliseconds per time unit of the spec's value column; any other unit (bytes, characters, days) is a count. */
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, min: 60_000, h: 3_600_000 };

/** Milliseconds per unit of a duration constant, by its name's ending. */
const NAME_MS: [RegExp, number][] = [[/_MS$/, 1], [/_S$/, 1_000], [/_MINUTES$/, 60_000]];

interface Row {
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  readonly file: string;
}

/** The rows of "Constants" that name their file (the policy table does not). */
function rows(): Row[] {
  const start = SPEC.indexOf('## Constants');
  const section = SPEC.slice(start, SPEC.indexOf('\n## ', start + 1));
  const found: Row[] = [];
  for (const line of section.split('\n')) {
    const cells = /^\| `([A-Z_]+)` \| ([0-9.]+)(?: ([a-z]+))? \| .* \| `([a-z/.-]+\.ts)` \|$/.exec(line);
    if (cells) found.push({ name: cells[1]!, value: Number(cells[2]), unit: cells[3] ?? '', file: cells[4]! });
  }
  return found;
}

/** A row's value and the code's, in one unit: milliseconds for a duration, else as written. */
function compared(row: Row, code: number): [number, number] {
  const perUnit = UNIT_MS[row.unit];
  if (perUnit === undefined) return [row.value, code];
  const perName = NAME_MS.find(([ending]) => ending.test(row.name))?.[1];
  if (perName === undefined) throw new Error(`${row.name} is given in ${row.unit} but its name says no unit of time`);
  return [row.value * perUnit, code * perName];
}

/** Every TAI_* name in the source (TypeScript, the launcher, the native client), a prefix in prose (`TAI_NOTIFY_*`) left out. */
function switchesRead(): string[] {
  const names = new Set<string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'build') walk(path);
      } else if (/\.(ts|c|h)$/.test(entry.name) || path.endsWith('bin/tai')) {
        for (const [name] of readFileSync(path, 'utf8').matchAll(/TAI_[A-Z_]+/g)) if (!name.endsWith('_')) names.add(name);
      }
    }
  };
  walk(new URL('src', ROOT).pathname);
  return [...names].sort();
}

describe('docs/spec.md, "Constants", beyond src/core/policy.ts', () => {
  const table = rows();

  it.each(table.map((row) => [row.name, row.file, row]))('has %s as %s defines it', (_name, _file, row) => {
    const entry = CONTRACT[row.file];
    expect(entry, `no module for ${row.file} in this test`).toBeDefined();
    const code = entry![0][row.name];
    expect(typeof code, `${row.file} exports no ${row.name}`).toBe('number');
    const [spec, actual] = compared(row, code as number);
    expect(spec).toBe(actual);
  });

  it('has a row for every contract constant, naming the file that defines it', () => {
    const listed = new Set(table.map((row) => `${row.file} ${row.name}`));
    const missing = Object.entries(CONTRACT).flatMap(([file, [, names]]) => names.map((name) => `${file} ${name}`)).filter((key) => !listed.has(key));
    expect(missing).toEqual([]);
    expect(table.length).toBe(Object.values(CONTRACT).reduce((n, [, names]) => n + names.length, 0));
  });

  it('gives a spawn\'s exit codes as the code does', () => {
    const { done, failed, timeout, cancelled } = agentResults.EXIT_CODES;
    expect(SPEC).toContain(`exits ${done} when it is done, ${failed} failed, ${timeout}\ntimeout, ${cancelled} cancelled (\`EXIT_CODES\``);
  });
});

describe('docs/spec.md, "Switches and environment"', () => {
  it('names, there or in README.md, every TAI_* variable the code reads', () => {
    const named = (name: string): boolean => [SPEC, README].some((doc) => new RegExp(`(?<![A-Z_])${name}(?![A-Z_])`).test(doc));
    expect(switchesRead().filter((name) => !named(name))).toEqual([]);
  });
});
