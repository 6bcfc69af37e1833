/**
 * One lead's side of tai (the `tai mcp` process): the agents it started (only those are its to wait on and cancel),
 * the events reported, and the pending waits, so two waits never race for one agent's end. Spawns are built as
 * `tai spawn` builds them.
 */
import { resolve } from 'node:path';
import { entrySpawnCommand } from '../../core/agents/agent-spawn.js';
import { findAgent, RegistryError, UnknownAgentError } from '../../core/agents/agent-registry.js';
import type { PermissionPolicy } from '../../core/agents/questions.js';
import type { CommandOf } from '../../core/protocol/commands.js';
import type { LeadEvent } from '../../core/lead/lead-view.js';
import { loadRegistry } from '../agents/spawn/agent-config.js';
import type { LeadBackend } from './lead-backend.js';
import { LeadQueue } from './lead-queue.js';
import { LeadRequestError, waitForEvents, type WaitOutcome } from './lead-wait.js';

/** One agent to start, as the lead asks for it. */
export interface SpawnAsk {
  readonly task?: string | undefined;
  readonly agent?: string | undefined;
  readonly argv?: readonly string[] | undefined;
  readonly kind?: string | undefined;
  readonly label?: string | undefined;
  readonly cwd?: string | undefined;
  readonly lane?: string | boolean | undefined;
  readonly permissions?: PermissionPolicy | undefined;
  readonly timeout_s?: number | undefined;
  readonly idle_cancel_s?: number | undefined;
  readonly retries?: number | undefined;
}

/** What became of one asked agent: its id, or why it did not start. */
export type SpawnOutcome =
  | { readonly ok: true; readonly id: number; readonly label: string; readonly shown: boolean; readonly note?: string }
  | { readonly ok: false; readonly label: string; readonly why: string; readonly full: boolean }
  | { readonly ok: 'queued'; readonly label: string; readonly place: number };

/** A lead's agents and waits. */
export class LeadSession {
  readonly #started = new Map<number, string>();
  readonly #reported = new Set<number>();
  readonly #waitedOn = new Set<number>();
  readonly seenQuestions = new Set<string>();
  /** The lane each lane agent of this lead runs in. */
  readonly lanes = new Map<number, string>();
  /** Spawns refused at the cap that wait for a slot (spawn with queue). */
  readonly queue: LeadQueue;
  /** Aborts every pending wait when the client has gone. */
  readonly #closed = new AbortController();

  constructor(
    readonly backend: LeadBackend,
    readonly env: NodeJS.ProcessEnv,
    readonly cwd: string = process.cwd(),
  ) {
    this.queue = new LeadQueue(backend, (id, label, lane) => this.#own(id, label, lane));
  }

  #own(id: number, label: string, lane: string | undefined): void {
    this.#started.set(id, label);
    if (lane !== undefined) this.lanes.set(id, lane);
  }

  /** The agents this lead started, with their labels. */
  get started(): ReadonlyMap<number, string> {
    return this.#started;
  }

  /** Starts each asked agent in turn; one refused (the cap of 8, a bad argv) does not stop the rest. */
  async spawn(asks: readonly SpawnAsk[], queue = false): Promise<SpawnOutcome[]> {
    const outcomes: SpawnOutcome[] = [];
    for (const ask of asks) {
      const label = ask.label ?? ask.agent ?? ask.argv?.join(' ') ?? '';
      let command: CommandOf<'spawn'>;
      try {
        command = await this.command(ask);
      } catch (err) {
        if (!(err instanceof LeadRequestError || err instanceof RegistryError || err instanceof UnknownAgentError)) throw err;
        outcomes.push({ ok: false, label, why: err.message, full: false });
        continue;
      }
      const reply = await this.backend.call(command);
      if (!reply.ok && queue && reply.error.startsWith('too many agents')) {
        outcomes.push({ ok: 'queued', label: command.label ?? label, place: this.queue.add(command, command.label ?? label) });
        continue;
      }
      if (!reply.ok) {
        outcomes.push({ ok: false, label: command.label ?? label, why: reply.error, full: reply.error.startsWith('too many agents') });
        continue;
      }
      this.#own(reply.data.id, reply.data.label, reply.data.lane);
      const note = reply.data.lane === undefined ? undefined : `runs in lane ${reply.data.lane} (${reply.data.cwd ?? ''}); when it ends: lane_diff, then lane_merge`;
      outcomes.push({ ok: true, id: reply.data.id, label: reply.data.label, shown: reply.data.shown, ...(note === undefined ? {} : { note }) });
    }
    return outcomes;
  }

  /** The spawn command for `ask`, or a LeadRequestError saying what is missing. */
  async command(ask: SpawnAsk): Promise<CommandOf<'spawn'>> {
    // As `tai spawn` refuses `--prompt ''` and `@name` alone: an agent with nothing to do is never started.
    if (ask.task !== undefined && ask.task.trim() === '') throw new LeadRequestError("task is empty: give the agent's task (or leave task out for a command)");
    if (ask.agent !== undefined && ask.task === undefined) throw new LeadRequestError(`agent ${ask.agent} needs a task: what it should do`);
    const cwd = resolve(this.cwd, ask.cwd ?? '.');
    const lane = ask.lane === true ? '' : ask.lane === false ? undefined : ask.lane;
    const common = {
      ...(ask.label === undefined ? {} : { label: ask.label }),
      ...(ask.task === undefined ? {} : { prompt: ask.task }),
      ...(ask.timeout_s === undefined ? {} : { timeout: ask.timeout_s }),
      ...(ask.idle_cancel_s === undefined ? {} : { idle_cancel: ask.idle_cancel_s }),
      ...(ask.retries === undefined ? {} : { retries: ask.retries }),
    };
    if (ask.agent !== undefined) {
      if (ask.argv !== undefined) throw new LeadRequestError('give agent (a registered name) or argv (a command), not both');
      const entry = findAgent((await loadRegistry(undefined, this.env)).entries, ask.agent.replace(/^@/, ''));
      const made = entrySpawnCommand(entry, { ...common, cwd, cwdOverride: ask.cwd !== undefined, session: true, permissions: ask.permissions ?? 'ask', ...(lane === undefined ? {} : { lane }) });
      return ask.permissions === undefined ? made : { ...made, permissions: ask.permissions };
    }
    if (ask.argv === undefined || ask.argv.length === 0) throw new LeadRequestError('nothing to run: give agent (a registered name: `tai agents` lists them) or argv (a command and its arguments)');
    return { cmd: 'spawn', kind: ask.kind ?? 'command', argv: ask.argv, ...common, cwd, permissions: ask.permissions ?? 'ask', ...(lane === undefined ? {} : { lane }) };
  }

  #unreported(): number[] {
    return [...this.#started.keys()].filter((id) => !this.#reported.has(id));
  }

  /** Why `id` is not this lead's, or undefined when it is. */
  notMine(id: number): string | undefined {
    if (this.#started.has(id)) return undefined;
    const mine = [...this.#started.keys()].map((i) => `#${i}`).join(', ');
    return `agent #${id} was not started by this lead (its agents: ${mine === '' ? 'none yet' : mine}); wait and cancel take the ids spawn returned`;
  }

  /**
   * Waits for the next events (with `all`, for all to finish) among `ids`, or among this lead's agents not reported
   * yet. A named agent reported before is reported again at once; one another wait waits on is refused.
   */
  async wait(ids: readonly number[] | undefined, all: boolean, timeoutMs: number, signal?: AbortSignal, onLook?: (waitedMs: number, pending: readonly number[]) => void): Promise<WaitOutcome> {
    for (const id of ids ?? []) {
      const why = this.notMine(id);
      if (why !== undefined) throw new LeadRequestError(why);
    }
    const deadline = Date.now() + timeoutMs;
    // Only queued spawns outstanding: wait for one of them to start, then for its end.
    while (ids === undefined && this.#unreported().length === 0 && this.queue.size > 0 && Date.now() < deadline && !(signal?.aborted || this.#closed.signal.aborted)) {
      await new Promise((r) => setTimeout(r, 500));
    }
    const watch = [...new Set(ids ?? this.#unreported())];
    const busy = watch.filter((id) => this.#waitedOn.has(id));
    if (busy.length > 0) throw new LeadRequestError(`another wait of this lead is already waiting on ${busy.map((i) => `#${i}`).join(', ')}: wait for that one to answer, or name other ids`);
    if (watch.length === 0) return { events: [], timedOut: false, aborted: false, pending: [] };
    for (const id of watch) this.#waitedOn.add(id);
    try {
      const stop = signal === undefined ? this.#closed.signal : AbortSignal.any([signal, this.#closed.signal]);
      const outcome = await waitForEvents(this.backend, { ids: watch, all, timeoutMs: Math.max(0, deadline - Date.now()), seenQuestions: this.seenQuestions, signal: stop, ...(onLook === undefined ? {} : { onLook }) });
      for (const e of outcome.events) if (e.kind === 'finished') this.#reported.add(e.id);
      return outcome;
    } finally {
      for (const id of watch) this.#waitedOn.delete(id);
    }
  }

  /** Drops every pending wait (the client went away); the agents go on. */
  close(): void {
    this.#closed.abort();
    this.queue.close();
  }

  /** True while a wait of this lead is pending (the wake-up stays quiet then). */
  get waiting(): boolean {
    return this.#waitedOn.size > 0;
  }

  /** Marks events as reported (the wake-up told the lead). */
  reported(events: readonly LeadEvent[]): void {
    for (const e of events) if (e.kind === 'finished') this.#reported.add(e.id);
  }
}
