/**
 * The version of the status's rows (store/status.ts), which the open agent
 * list follows: a row can change with no panel changing (a lane's tag on an
 * ended agent, an agent off the board), so the list cannot follow the panels.
 */

/**
 * A change is marked where it happens and told at the next publish, so no listener reads the board half changed
 * and a publish that changed no row tells nobody.
 */
export class RowsVersion {
  #version = 0;
  #moved = false;
  readonly #listeners = new Set<() => void>();

  get version(): number {
    return this.#version;
  }

  /** A row reads differently from the next publish on. */
  moved(): void {
    this.#moved = true;
  }

  /** The board published: the version moves and the listeners hear of it, if a row changed. */
  published(): void {
    if (!this.#moved) return;
    this.#moved = false;
    this.#version++;
    for (const l of [...this.#listeners]) l();
  }

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }
}
