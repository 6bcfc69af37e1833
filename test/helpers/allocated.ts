/**
 * Counting allocation, not time: the bytes V8's young generation took while
 * a synchronous piece of code ran, for tests that guard a hot path's garbage.
 */
import v8 from 'node:v8';

function youngUsed(): number {
  return v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_used_size ?? 0;
}

/** Bytes allocated while `run` ran; undefined when a collection ran meanwhile (the count is then lost). */
export function allocated(run: () => void): number | undefined {
  const before = youngUsed();
  run();
  const after = youngUsed();
  return after > before ? after - before : undefined;
}

/**
 * The median bytes allocated per item over `rounds` batches (`batch()` makes
 * one batch, `each` handles one item); batches a collection interrupted are
 * left out, and at least a quarter must remain.
 */
export function bytesPerItem<T>(rounds: number, batch: () => T[], each: (item: T) => void): number {
  const per: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const items = batch();
    const bytes = allocated(() => {
      for (let i = 0; i < items.length; i++) each(items[i]!);
    });
    if (bytes !== undefined) per.push(bytes / items.length);
  }
  if (per.length < rounds / 4) throw new Error(`only ${per.length} of ${rounds} batches ran without a collection: make the batches smaller`);
  per.sort((a, b) => a - b);
  return per[per.length >> 1]!;
}
