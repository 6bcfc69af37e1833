/**
 * A bounded memory of tool call ids and their names (docs/spec.md, "Event
 * sources": "the tool name comes from the remembered call id (at most 256
 * remembered)"), so that a tool's end can be named however long the session
 * runs.
 */

/** At most this many tool calls are remembered. */
export const TOOL_IDS_MAX = 256;

/** Insertion-ordered map that forgets its oldest entry past its cap. */
export class RecentIds {
  readonly #names = new Map<string, string>();

  constructor(readonly max: number = TOOL_IDS_MAX) {}

  /** Remembers `id`'s name. */
  set(id: string, name: string): void {
    this.#names.delete(id);
    this.#names.set(id, name);
    if (this.#names.size > this.max) {
      const oldest = this.#names.keys().next().value;
      if (oldest !== undefined) this.#names.delete(oldest);
    }
  }

  /** The remembered name of `id`, or undefined. */
  get(id: string): string | undefined {
    return this.#names.get(id);
  }

  /** Forgets `id` (its call ended). */
  delete(id: string): void {
    this.#names.delete(id);
  }
}
