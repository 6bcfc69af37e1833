// Preloaded into the soak's processes by TAI_SOAK_ALLOC_PROF_DIR (test/bench/day-soak.ts): in the
// cockpit's server alone, V8's sampling heap profiler runs from the start and keeps the samples of
// objects a full collection freed. Every minute the profile so far is written into that folder.
// Read it as where the server allocates, not as what is promoted: the profiler's handle keeps a
// sampled young object through the scavenges, so nearly every sample lives to a full collection.
if (process.argv.includes('__server') && process.env.TAI_SOAK_ALLOC_PROF_DIR) {
  const inspector = require('node:inspector');
  const { writeFileSync } = require('node:fs');
  const { join } = require('node:path');
  const dir = process.env.TAI_SOAK_ALLOC_PROF_DIR;
  const session = new inspector.Session();
  session.connect();
  let n = 0;
  session.post('HeapProfiler.enable', () =>
    session.post('HeapProfiler.startSampling', { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: false }),
  );
  setInterval(() => {
    session.post('HeapProfiler.getSamplingProfile', (err, result) => {
      n++;
      if (!err) writeFileSync(join(dir, `alloc-${process.pid}-minute-${n}.heapprofile`), JSON.stringify(result.profile));
    });
  }, 60_000).unref();
}
