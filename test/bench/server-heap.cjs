// Preloaded into the soak's processes by TAI_SOAK_HEAP_LOG (test/bench/day-soak.ts): in the
// cockpit's server alone, every 5 s one JSON line is appended to that file with V8's heap (used,
// per space), Node's external and array buffers, and the process's anonymous memory, so that
// growth of the JS heap can be told apart from malloc's (native) growth.
if (process.argv.includes('__server') && process.env.TAI_SOAK_HEAP_LOG) {
  const v8 = require('node:v8');
  const { appendFileSync, readFileSync } = require('node:fs');
  const file = process.env.TAI_SOAK_HEAP_LOG;
  const kb = (text, key) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0);
  const sample = () => {
    const m = process.memoryUsage();
    const spaces = {};
    for (const s of v8.getHeapSpaceStatistics()) spaces[s.space_name] = s.space_used_size;
    let smaps = '';
    try {
      smaps = readFileSync('/proc/self/smaps_rollup', 'utf8');
    } catch {}
    const line = {
      t: Date.now(),
      rss: m.rss,
      heapUsed: m.heapUsed,
      heapTotal: m.heapTotal,
      external: m.external,
      arrayBuffers: m.arrayBuffers,
      spaces,
      anon: kb(smaps, 'Anonymous') * 1024,
      pss: kb(smaps, 'Pss') * 1024,
      mallocedMemory: v8.getHeapStatistics().malloced_memory,
    };
    appendFileSync(file, JSON.stringify(line) + '\n');
  };
  setInterval(sample, 5000).unref();
}
