/**
 * The cockpit's mention prompt at work (docs/agents-registry.md, "In the cockpit"): keys edit the prompt's line; Enter
 * turns `@name prompt` into the entry's spawn Command (as `tai spawn @name` does) for the one dispatcher. Each mention
 * is a turn of the session (agent, model, directory) named by sessionKey, one turn at a time: a mention while the
 * session's panel is live is refused with that panel, never a second process. Refusals come back as the line's error.
 */
import type { SpawnResult } from '../../../core/agents/agent-service.js';
import { entrySpawnCommand, sessionKey } from '../../../core/agents/agent-spawn.js';
import { findAgent, resolveMention, type AgentEntry } from '../../../core/agents/agent-registry.js';
import type { CommandOf } from '../../../core/protocol/commands.js';
import { messageOf } from '../../../core/errors.js';
import { isLive } from '../../../core/panel/panel-state.js';
import type { Board } from '../../../../store/board.js';
import type { Reply } from '../../../../store/dispatch.js';
import type { MentionPrompt } from '../../../../store/mention-prompt.js';

/** What the mention prompt needs from the cockpit. */
export interface MentionDeps {
  readonly board: Board;
  /** The registry in effect (read again each time the prompt opens, so edits to agents.json apply). */
  loadEntries(): Promise<readonly AgentEntry[]>;
  /** Where the entry's program is, or undefined when it is not found on PATH. */
  locate(entry: AgentEntry): string | undefined;
  /** The directory agents start in when their entry names none. */
  readonly cwd: string;
  /** Carries out the spawn through the cockpit's dispatcher. */
  spawn(command: CommandOf<'spawn'>): Promise<Reply<SpawnResult>>;
  /** Something changed on the prompt: draw it soon. */
  changed(): void;
}

/** The example the prompt shows when a line is not a mention. */
export const MENTION_USAGE = 'type @name and a prompt, like @gemini explain this repository';

/** Drives one mention prompt; one per cockpit. */
export class MentionController {
  #entries: readonly AgentEntry[] = [];
  /** The names Tab completes: the entries whose program is found, read when the prompt opens. */
  #installed: readonly string[] = [];
  /** Keys are applied in order, each after the registry was read (Tab right after opening completes too). */
  #queue: Promise<unknown> = Promise.resolve();
  /** The panel of each session's latest turn, by sessionKey. */
  readonly #sessions = new Map<string, number>();

  constructor(
    readonly prompt: MentionPrompt,
    private readonly deps: MentionDeps,
  ) {}

  /** Opens the prompt and reads the registry for completion. */
  open(): void {
    this.prompt.getState().open();
    this.deps.changed();
    this.#queue = this.deps.loadEntries().then(
      (entries) => {
        this.#entries = entries;
        // Tab offers only agents whose program is here; an uninstalled one is left out, and naming it says why.
        this.#installed = entries.filter((e) => this.deps.locate(e) !== undefined).map((e) => e.name);
      },
      (err: unknown) => {
        this.prompt.getState().fail(messageOf(err));
        this.deps.changed();
      },
    );
  }

  /** One key (or a paste) from the KeyScanner, applied after the keys before it; resolves true when the prompt closed. */
  key(key: string, paste = false): Promise<boolean> {
    const done = this.#queue.then(() => this.#key(key, paste)).catch((err: unknown) => {
      // Never a crash of the cockpit: the failure shows in the line.
      this.prompt.getState().fail(`internal error: ${messageOf(err)}`);
      this.deps.changed();
      return false;
    });
    this.#queue = done;
    return done;
  }

  async #key(key: string, paste: boolean): Promise<boolean> {
    const state = this.prompt.getState();
    const line = state.line;
    const outcome = state.key(key, this.#installed, paste);
    this.deps.changed();
    if (outcome === 'cancel') return true;
    if (outcome !== 'submit' || line === null) return false;
    const error = await this.submit(this.prompt.getState().line?.text ?? line.text);
    if (error === null) this.prompt.getState().close();
    else this.prompt.getState().fail(error);
    this.deps.changed();
    return error === null;
  }

  /** Starts the mentioned agent's next turn; returns the error to show, or null when it started. */
  async submit(text: string): Promise<string | null> {
    const mention = resolveMention(text);
    if (!mention) return MENTION_USAGE;
    if (mention.prompt === '') return `@${mention.name} needs a prompt after the name`;
    let entry: AgentEntry;
    try {
      if (this.#entries.length === 0) this.#entries = await this.deps.loadEntries();
      entry = findAgent(this.#entries, mention.name);
    } catch (err) {
      return messageOf(err);
    }
    if (this.deps.locate(entry) === undefined) {
      return `@${entry.name} cannot start: "${entry.command[0] ?? ''}" is not found on PATH (tai agents lists what is available)`;
    }
    // Started from the cockpit, someone is there to answer: ask (docs/agents.md, "Permissions").
    const command = entrySpawnCommand(entry, { prompt: mention.prompt, cwd: this.deps.cwd, session: true, permissions: 'ask' });
    const key = command.session ?? sessionKey(entry, command.cwd ?? this.deps.cwd);
    const live = this.#liveSession(key);
    if (live !== undefined) {
      return `@${entry.name} is still working in panel #${live}: its session takes the next turn when this one ends (or close the panel)`;
    }
    this.prompt.getState().setBusy(true);
    try {
      const reply = await this.deps.spawn(command);
      if (!reply.ok) return reply.error;
      this.#sessions.set(key, reply.data.id);
      return null;
    } finally {
      this.prompt.getState().setBusy(false);
    }
  }

  /** The panel of the session for `key` while it is live; forgets finished ones. */
  #liveSession(key: string): number | undefined {
    const id = this.#sessions.get(key);
    if (id === undefined) return undefined;
    const view = this.deps.board.getState().panels.find((p) => p.id === id);
    if (view && isLive(view.state)) return id;
    this.#sessions.delete(key);
    return undefined;
  }
}
