// Preloaded into the soak's processes by TAI_SOAK_HEAP_LOG (test/bench/day-soak.ts): in the
// cockpit's server alone, every 5 s one JSON line is appended to that file with V8's heap (used,
// per space), Node's external and array buffers, and the process's anonymous memory, so that
// growth of the JS heap can be told apart from malloc's (native) growth; per space, what is used
// and what is committed (physical), to tell the young generation's sizing from the old space's. With TAI_SOAK_HEAP_GC=1
// a full collection runs before every twelfth sample (once a minute), which is then marked
// `afterGc`: the live heap, without the garbage a late major collection leaves for a while.
if (process.argv.includes('__server') && process.env.TAI_SOAK_HEAP_LOG) {
  const v8 = require('node:v8');
  // TAI_SOAK_V8_FLAGS: V8 flags set in the server at its start, to try one (e.g. --heap-growing-percent=50).
  if (process.env.TAI_SOAK_V8_FLAGS) v8.setFlagsFromString(process.env.TAI_SOAK_V8_FLAGS);
  const { appendFileSync, readFileSync } = require('node:fs');
  const file = process.env.TAI_SOAK_HEAP_LOG;
  const kb = (text, key) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0);
  const forced = process.env.TAI_SOAK_HEAP_GC === '1';
  let gc;
  if (forced) {
    v8.setFlagsFromString('--expose-gc');
    gc = require('node:vm').runInNewContext('gc');
  }
  let n = 0;
  const sample = () => {
    const afterGc = forced && ++n % 12 === 0;
    if (afterGc) gc();
    const m = process.memoryUsage();
    const spaces = {};
    const committed = {};
    for (const s of v8.getHeapSpaceStatistics()) {
      spaces[s.space_name] = s.space_used_size;
      committed[s.space_name] = s.physical_space_size;
    }
    let smaps = '';
    try {
      smaps = readFileSync('/proc/self/smaps_rollup', 'utf8');
    } catch {}
    const line = {
      t: Date.now(),
      afterGc,
      rss: m.rss,
      heapUsed: m.heapUsed,
      heapTotal: m.heapTotal,
      external: m.external,
      arrayBuffers: m.arrayBuffers,
      spaces,
      committed,
      anon: kb(smaps, 'Anonymous') * 1024,
      pss: kb(smaps, 'Pss') * 1024,
      mallocedMemory: v8.getHeapStatistics().malloced_memory,
    };
    appendFileSync(file, JSON.stringify(line) + '\n');
  };
  setInterval(sample, 5000).unref();
}
