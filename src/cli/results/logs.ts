/**
 * `tai logs ID [-f]`: an agent's whole transcript as plain text, from the state database (docs/agents.md, "An
 * agent's transcript"), so it answers with no cockpit running; `-f` follows a live agent by polling every
 * LOGS_POLL_MS until its footer. Exit 1: unknown agent or no transcript, 74: unreadable database, 130: Ctrl-C.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { TRANSCRIPT_FOOTER } from '../../core/agents/transcript.js';
import { TRANSCRIPT_HEAD_BYTES, TRANSCRIPT_TAIL_BYTES } from '../../core/agents/transcript-cap.js';
import { isLive, type FinalState } from '../../core/panel/panel-state.js';
import { formatElapsed } from '../../core/panel/header.js';
import { EXIT_STORAGE } from '../../io/agents/agent-results.js';
import { AgentsStore, type StoredAgent } from '../../io/storage/agents-store.js';
import { storedKey } from '../../io/storage/stored-status.js';
import { openStateDb, stateDir, StateDbError, STATE_DB_FILE, type StateDb } from '../../io/storage/state-db.js';
import { TranscriptStore, type StoredTranscript } from '../../io/storage/transcripts.js';
import { agentIdProblem, readCommandLine, usageError } from '../command-line.js';
import { CliOutput, field } from '../output.js';
import { processIo, type CliIo } from '../cli-io.js';

/** How often -f reads the database for more. */
export const LOGS_POLL_MS = 250;

const USAGE =
  'usage: tai logs [-t NAME] ID [-f | --follow]\n' +
  "An agent's whole transcript (task, text, stderr, tools, notes, footer) as plain text, live or finished,\n" +
  'from the state database: it works when no cockpit runs. ID is the number `tai status` shows (the newest\n' +
  'agent with that number) or PID/N from `tai status --all`. -f follows a live agent until it ends.\n' +
  '-t NAME: agent ID of the cockpit NAME (tai ls lists them).\n';

const SPEC = { name: 'logs', usage: USAGE, options: { follow: { type: 'boolean', short: 'f' }, target: { type: 'string', short: 't' } } } as const;

/** Runs `tai logs ARGS`; returns the exit code. */
export async function run(args: readonly string[], io: CliIo = processIo): Promise<number> {
  const out = new CliOutput(io);
  const parsed = readCommandLine(SPEC, args, out);
  if (typeof parsed === 'number') return parsed;
  const [idText, ...extra] = parsed.positionals;
  const key = /^([1-9]\d*)\/(.*)$/.exec(idText ?? '');
  const bad = agentIdProblem(key ? key[2] : idText, extra);
  if (bad !== undefined) return usageError(SPEC, out, bad);
  const id = Number(key ? key[2] : idText);
  const target = parsed.values.target;
  if (target !== undefined && key) return usageError(SPEC, out, `-t ${target} and ${idText} both name a cockpit: give one`);
  let pid = key ? Number(key[1]) : undefined;
  if (target !== undefined) {
    // The cockpit's agents are stored under its pid: `-t NAME ID` is `PID/ID`.
    const { findCockpit } = await import('../../io/link/link-place.js');
    try {
      pid = findCockpit(target, io.env).pid;
    } catch (err) {
      out.warn(`tai logs: ${field(err instanceof Error ? err.message : String(err))}\n`);
      return 2;
    }
  }
  const path = join(stateDir(io.env), STATE_DB_FILE);
  if (!existsSync(path)) {
    out.warn(`tai logs: no agent ${idText}: no agent has run on this machine yet (no state database at ${field(path)})\n`);
    return 1;
  }
  let db: StateDb;
  try {
    db = openStateDb(path);
  } catch (err) {
    if (!(err instanceof StateDbError)) throw err;
    out.warn(`tai logs: ${field(err.message)}\n`);
    return EXIT_STORAGE;
  }
  try {
    return await show(new AgentsStore(db), new TranscriptStore(db), id, pid, idText ?? '', Boolean(parsed.values.follow), io, out);
  } catch (err) {
    if (!(err instanceof StateDbError)) throw err;
    out.warn(`tai logs: ${field(err.message)}\n`);
    return EXIT_STORAGE;
  } finally {
    db.close();
  }
}

async function show(agents: AgentsStore, transcripts: TranscriptStore, id: number, pid: number | undefined, idText: string, follow: boolean, io: CliIo, out: CliOutput): Promise<number> {
  agents.settleDead(Date.now());
  const agent = agents.find(id, pid);
  if (!agent) {
    out.warn(`tai logs: no agent ${field(idText)} (\`tai status --all\` lists the agents this machine ran)\n`);
    return 1;
  }
  const first = transcripts.read(agent.run, agent.id);
  if (!first) {
    out.warn(`tai logs: agent ${storedKey(agent.run, agent.id)} has no transcript (it ran before tai kept transcripts)\n`);
    return 1;
  }
  const printer = new Printer(out);
  printer.print(first);
  if (!follow || !isLive(agent.state)) return printer.end(first, agent);
  let stopped = false;
  let wake: () => void = () => {};
  const off = io.onInterrupt(() => {
    stopped = true;
    wake();
  });
  try {
    for (;;) {
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, LOGS_POLL_MS);
      });
      if (stopped) return 130;
      agents.settleDead(Date.now());
      const now = agents.find(agent.id, Number(agent.run.split('-')[0])) ?? agent;
      const more = transcripts.read(agent.run, agent.id, printer.lastSeq);
      if (more) printer.print(more);
      // The footer is written before the final row (src/io/agents/attempt-effects.ts): a final row means it is in.
      if (!isLive(now.state)) return printer.end(more ?? first, now);
    }
  } finally {
    off();
  }
}

/** Prints parts in order, once each, with the cut between head and tail said where it is. */
class Printer {
  lastSeq = 0;
  #cutSaid = false;
  #inTail = false;

  constructor(readonly out: CliOutput) {}

  print(t: StoredTranscript): void {
    for (const part of t.parts) {
      const skipped = part.seq !== this.lastSeq + 1;
      if (!part.head && !this.#inTail) {
        this.#inTail = true;
        if (t.cutBytes > 0 && !this.#cutSaid) this.#cut(t.cutBytes);
      } else if (skipped && this.#inTail && this.lastSeq > 0) this.#cut(t.cutBytes, true);
      this.out.result(part.text, false);
      this.lastSeq = part.seq;
    }
  }

  /** The agent ended: a footer from its row when its supervisor could not write one; the exit code. */
  end(t: StoredTranscript, agent: StoredAgent): number {
    if (!t.ended && !isLive(agent.state)) {
      const state = agent.state as FinalState;
      const elapsed = (agent.finishedAt ?? agent.startedAt) - agent.startedAt;
      this.out.result(`\n${TRANSCRIPT_FOOTER[state]} · ${formatElapsed(elapsed)}${agent.reason ? ` · ${field(agent.reason)}` : ''}\n`, false);
    }
    return 0;
  }

  #cut(bytes: number, following = false): void {
    this.#cutSaid = true;
    const what = following ? 'output cut while following (the transcript keeps' : `${bytes} bytes cut here (the transcript keeps`;
    this.out.result(`\n[… ${what} its first ${TRANSCRIPT_HEAD_BYTES / 1024} KiB and its last ${TRANSCRIPT_TAIL_BYTES / 1024} KiB …]\n`, false);
  }
}
