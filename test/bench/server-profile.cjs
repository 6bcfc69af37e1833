// Preloaded into the soak's processes by TAI_SOAK_CPU_PROF_DIR (test/bench/day-soak.ts): in the
// cockpit's server alone, each SIGUSR2 writes the CPU profile since the last one (a minute of the
// soak) into that folder, for Chrome's DevTools or a script, and starts the next.
if (process.argv.includes('__server') && process.env.TAI_SOAK_CPU_PROF_DIR) {
  const inspector = require('node:inspector');
  const { writeFileSync } = require('node:fs');
  const { join } = require('node:path');
  const dir = process.env.TAI_SOAK_CPU_PROF_DIR;
  const session = new inspector.Session();
  session.connect();
  let n = 0;
  session.post('Profiler.enable', () => session.post('Profiler.start'));
  process.on('SIGUSR2', () => {
    session.post('Profiler.stop', (err, result) => {
      n++;
      if (!err) writeFileSync(join(dir, `server-${process.pid}-minute-${n}.cpuprofile`), JSON.stringify(result.profile));
      session.post('Profiler.start');
    });
  });
}
