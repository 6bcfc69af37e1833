import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

/** Every test file. */
const ALL = ['test/**/*.test.ts', 'test/**/*.test.tsx'];
// The real agent CLIs (test/real-agents/node_modules) ship tests of their own: never collect them.
const NEVER = [...configDefaults.exclude, 'test/real-agents/node_modules/**'];

/**
 * The unit project (`npm run test:unit`): pure and in-process tests only, no
 * child process, pty, tmux or built dist/ (test/architecture/unit-project.test.ts
 * holds it to that). A test file not named here runs in the process project, so
 * a new test is never left out of `npm test`; so does a NAME.process.test.ts
 * beside unit files, which holds the cases of NAME that start a process.
 */
const UNIT = [
  'test/core/**/*.test.ts',
  'test/store/**/*.test.ts',
  'test/api/**/*.test.ts',
  'test/architecture/folders.test.ts',
  'test/architecture/imports.test.ts',
  'test/components/cockpit.test.tsx',
  'test/components/copy-mode.test.tsx',
  'test/components/embedding.test.tsx',
  'test/components/first-hour.test.tsx',
  'test/components/mouse.test.tsx',
  'test/components/status-line.test.tsx',
  'test/io/terminal/**/*.test.ts',
  'test/io/storage/**/*.test.ts',
  'test/io/socket/socket-conformance.test.ts',
  'test/io/socket/socket-fuzz.test.ts',
  'test/io/socket/socket-server.test.ts',
  'test/io/cockpit/board-clock.test.ts',
  'test/io/cockpit/cockpit-board.test.ts',
  'test/io/cockpit/cockpit-end.test.ts',
  'test/io/cockpit/drawing.test.ts',
  'test/io/cockpit/keys/**/*.test.ts',
  'test/io/link/keys-text.test.ts',
  'test/io/outage/outage-report.test.ts',
  'test/io/agents/runners/reaper-binary.test.ts',
  'test/io/agents/runners/result-text.test.ts',
].map((glob) => glob.replace(/\*\.test\.ts$/, '!(*.process).test.ts'));

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // `npm test` runs both; `npm run test:unit` the first. The unit files share their modules in a worker (isolate:
    // false), so Ink and xterm are imported once, not once a file: none of them leaves process state another reads.
    projects: [
      { extends: true, test: { name: 'unit', include: UNIT, exclude: NEVER, isolate: false } },
      { extends: true, test: { name: 'process', include: ALL, exclude: [...NEVER, ...UNIT] } },
    ],
  },
});
