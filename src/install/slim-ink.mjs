#!/usr/bin/env node
// Run by `npm install` (the package's install script), after the native
// reaper's build. Ink 6.8 imports one function, `throttle`, from
// `es-toolkit/compat`, whose entry point loads all of es-toolkit's 415
// compat modules: about 24 MB of RSS in every cockpit for one function
// (which tai never even calls: Ink runs in debug mode, unthrottled;
// docs/performance.md, "Memory"). This rewrites that one import in Ink's
// build to es-toolkit's own single-function entry point, the same function.
//
// It changes nothing unless it finds exactly the line it expects (another
// Ink is left as it is), writes atomically, and never fails the install.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const FROM = "import { throttle } from 'es-toolkit/compat';";
const TO = "import throttle from 'es-toolkit/compat/throttle'; // tai: one function, not all of compat (src/install/slim-ink.mjs)";

try {
  const ink = join(dirname(fileURLToPath(import.meta.resolve('ink'))), 'ink.js');
  const text = readFileSync(ink, 'utf8');
  if (text.includes(TO)) process.exit(0);
  if (!text.includes(FROM)) {
    process.stdout.write('tai: this Ink does not import es-toolkit/compat as 6.8 does; left as it is\n');
    process.exit(0);
  }
  // The single-function entry point must exist and give the same function before Ink is pointed at it.
  const single = await import('es-toolkit/compat/throttle');
  const whole = await import('es-toolkit/compat');
  if (single.default !== whole.throttle) {
    process.stdout.write('tai: es-toolkit/compat/throttle is not compat\'s throttle; Ink left as it is\n');
    process.exit(0);
  }
  const tmp = `${ink}.${process.pid}`;
  writeFileSync(tmp, text.replace(FROM, TO));
  renameSync(tmp, ink);
} catch (err) {
  process.stdout.write(`tai: Ink's import of es-toolkit left as it is (${err instanceof Error ? err.message : String(err)})\n`);
}
