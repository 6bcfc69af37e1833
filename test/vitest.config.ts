import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // The real agent CLIs (test/real-agents/node_modules) ship tests of their own: never collect them.
    exclude: [...configDefaults.exclude, 'test/real-agents/node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
