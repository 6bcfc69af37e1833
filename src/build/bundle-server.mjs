// Bundles the cockpit's server (dist/src/cli.js run as `tai __server`) into
// dist/server/ after tsc: one module record per chunk instead of hundreds,
// and Ink's es-toolkit/compat shaken down to the throttle it uses
// (docs/performance.md, "Optimisations that stay").
import { readFileSync, rmSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const entry = resolve(root, 'dist/src/cli.js');
const outDir = resolve(root, 'dist/server');
const built = resolve(root, 'dist') + sep;

// Native addons are loaded by path from their own packages; Ink loads its
// devtools only when asked to (DEV=true), and tai does not ship them.
const external = [/^node:/, /^better-sqlite3$/, /^node-pty$/, /^react-devtools-core$/];

/**
 * Each bundled module of ours keeps its own place: `import.meta.url` becomes
 * its file in dist/, so the paths it resolves from itself (cli.js, the
 * demo agents, the remote scripts) are the ones tsc built. The entry keeps
 * the bundle's own, so that it knows it was run.
 */
const ownPlaces = {
  name: 'own-places',
  transform: {
    filter: { id: /\.js$/, code: 'import.meta.url' },
    handler(code, id) {
      if (id === entry || !id.startsWith(built)) return null;
      const place = relative(outDir, id).split('\\').join('/');
      return { code: code.replaceAll('import.meta.url', `new URL(${JSON.stringify(place)}, import.meta.url).href`), map: null };
    },
  },
};

/**
 * The packages' production builds only (React, its reconciler, the
 * scheduler): the server runs them with NODE_ENV=production, and the
 * development builds would otherwise sit in the bundle's source, never run.
 */
const production = {
  name: 'production',
  transform: {
    filter: { id: /[\\/]node_modules[\\/]/, code: 'process.env.NODE_ENV' },
    handler(code) {
      return { code: code.replaceAll('process.env.NODE_ENV', '"production"'), map: null };
    },
  },
};

const started = Date.now();
// Chunks are named by their hash: last build's would stay beside this one's.
rmSync(outDir, { recursive: true, force: true });
await build({
  input: entry,
  platform: 'node',
  external,
  plugins: [ownPlaces, production],
  logLevel: 'warn',
  // ASCII only: V8 keeps a loaded module's source one byte a character, but two for all of it when one character is past
  // Latin-1 (a '…' in a comment); comments are not kept (docs/performance.md, "Lean loading: one bundle").
  output: {
    dir: outDir,
    format: 'esm',
    entryFileNames: 'cli.js',
    chunkFileNames: '[name]-[hash].js',
    sourcemap: false,
    charset: 'ascii',
    comments: false,
  },
});
const size = readFileSync(resolve(outDir, 'cli.js')).length;
process.stdout.write(`bundled the server into dist/server in ${Date.now() - started} ms (entry ${Math.round(size / 1024)} KB)\n`);
