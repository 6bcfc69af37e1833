/**
 * `npm run bench`: runs every benchmark in sequence and prints its table.
 * Arguments: names of benchmarks to run (default all but the soak),
 * `--quick` for a short run, `--minutes N` for the soak's length.
 * Benchmarks report; they never fail.
 */
type Bench = (quick: boolean) => Promise<void>;

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const minutesAt = args.indexOf('--minutes');
const minutes = minutesAt >= 0 ? Number(args[minutesAt + 1]) : undefined;

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
  instructions: async (quick) => (await import('./instructions.js')).run({ runs: quick ? 1 : 2 }),
  stall: async () => (await import('./stall.js')).run(),
  'db-size': async (quick) => (await import('./db-size.js')).run({ agents: quick ? 10 : 40 }),
  // valgrind's count (slow), and the real server for half an hour or more: only when named.
  soak: async (quick) => (await import('./day-soak.js')).run({ minutes: minutes ?? (quick ? 2 : 30) }),
};
const ON_REQUEST = new Set(['soak', 'instructions']);

if (minutes !== undefined && !(minutes >= 1)) {
  process.stderr.write(`bench: --minutes takes a whole number of minutes, 1 or more, got '${args[minutesAt + 1] ?? ''}'\n`);
  process.exit(64);
}
const names = args.filter((a, i) => !a.startsWith('--') && (minutesAt < 0 || i !== minutesAt + 1));
for (const name of names.length > 0 ? names : Object.keys(BENCHES).filter((n) => !ON_REQUEST.has(n))) {
  const bench = BENCHES[name];
  if (!bench) {
    process.stderr.write(`bench: unknown benchmark '${name}' (have: ${Object.keys(BENCHES).join(', ')})\n`);
    process.exitCode = 2;
    continue;
  }
  await bench(quick);
}
