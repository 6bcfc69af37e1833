/** The stdout Ink is given: the window's size, and every frame handed to the output stage. */
import { Writable } from 'node:stream';

/** The stdout Ink writes to: it has the window's size and hands every frame to the output stage. */
export class InkStdout extends Writable {
  constructor(
    public columns: number,
    public rows: number,
    private readonly onFrame: (frame: string) => void,
  ) {
    super({ decodeStrings: false });
  }

  /** Follows the window and tells Ink. */
  resize(cols: number, rows: number): void {
    this.columns = cols;
    this.rows = rows;
    this.emit('resize');
  }

  /** Every write from Ink is one whole frame (Ink runs in debug mode). */
  override write(chunk: unknown, ...rest: unknown[]): boolean {
    this.onFrame(typeof chunk === 'string' ? chunk : String(chunk));
    const cb = rest.find((r): r is () => void => typeof r === 'function');
    cb?.();
    return true;
  }
}

/** The file descriptor of a stream (1 when it has none). */
export function fdOf(stream: NodeJS.WriteStream): number {
  const fd = (stream as { fd?: unknown }).fd;
  return typeof fd === 'number' ? fd : 1;
}
