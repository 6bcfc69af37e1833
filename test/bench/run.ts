/**
 * `npm run bench`: runs every benchmark in sequence and prints its table.
 * Arguments: names of benchmarks to run (default all), `--quick` for a short
 * run. Benchmarks report; they never fail.
 */
type Bench = (quick: boolean) => Promise<void>;

/** Every benchmark by name; each module prints its own markdown table. */
const BENCHES: Record<string, Bench> = {
  board: async (quick) => (await import('./board.js')).run({ seconds: quick ? 3 : 10 }),
  cockpit: async (quick) => (await import('./cockpit.js')).run({ quick }),
  client: async () => (await import('./client.js')).run(),
  reaper: async () => (await import('./reaper.js')).run(),
  paced: async (quick) => (await import('./paced.js')).run({ runs: quick ? 3 : 5 }),
  idle: async (quick) => (await import('./idle.js')).run({ quick }),
  lanes: async (quick) => (await import('./lanes.js')).run({ runs: quick ? 1 : 3 }),
  'lanes-idle': async (quick) => (await import('./lanes-idle.js')).run({ quick }),
  attach: async (quick) => (await import('./attach.js')).run({ cycles: quick ? 20 : 100 }),
};

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const names = args.filter((a) => !a.startsWith('--'));
for (const name of names.length > 0 ? names : Object.keys(BENCHES)) {
  const bench = BENCHES[name];
  if (!bench) {
    process.stderr.write(`bench: unknown benchmark '${name}' (have: ${Object.keys(BENCHES).join(', ')})\n`);
    process.exitCode = 2;
    continue;
  }
  await bench(quick);
}
