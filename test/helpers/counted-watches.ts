/** fs.watch on one folder, as a lane's watch makes it, counting the watches still open (tests of lanes). */
import { watch, type FSWatcher } from 'node:fs';
import type { WatchFolder } from '../../src/io/lanes/lane-tree-watch.js';

/** A WatchFolder whose `open` set holds every watch made and not yet closed. */
export function countedWatches(): { open: Set<FSWatcher>; watchFolder: WatchFolder } {
  const open = new Set<FSWatcher>();
  const watchFolder: WatchFolder = (path, listener) => {
    const w = watch(path, { persistent: false }, listener);
    open.add(w);
    const close = w.close.bind(w);
    w.close = () => {
      open.delete(w);
      close();
    };
    return w;
  };
  return { open, watchFolder };
}
