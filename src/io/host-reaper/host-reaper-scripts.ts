/**
 * The shell scripts that put the native reaper on a host (docs/remote.md, "The reaper on a host"), run by its login
 * shell over the shared connection, and their answers read. Each file is written beside its content-hashed name and
 * renamed over it once it ran there, so a half file or one the host cannot run is never named.
 */
import { shCommand } from '../../core/remote/sh-quote.js';

/** The host's folder of tai's files (the slots' folder is under it too). */
const CACHE = 'c="${XDG_CACHE_HOME:-$HOME/.cache}/tai"';

/** Line that begins each answer: what a banner printed before it is not read. */
export const ANSWER = 'tai-host-reaper';

/** The probe; its arguments: the copied binary's name, the built one's. */
const PROBE = [
  CACHE,
  `echo ${ANSWER}; echo "dir $c"; echo "uname $(uname -sm)"`,
  'command -v cc >/dev/null 2>&1 && echo "have cc"',
  'for n in "$1" "$2"; do [ -x "$c/$n" ] && echo "have $n"; done',
  'true',
].join('\n');

/**
 * Makes `$t` the file `$c/$n` once it runs on the host: `$e` says why not.
 * The tried file is removed either way.
 */
const NAME_IT = [
  'if e=$("$t" --host true 2>&1 </dev/null); then chmod 700 "$t" && mv -f "$t" "$c/$n" && echo "ok $c/$n"; fi',
  `[ -e "$t" ] && { echo "failed $(printf '%s' "$e" | tail -n 1)"; rm -f "$t"; }`,
  'true',
].join('\n');

/** The copy: stdin is the binary; its argument its name. */
const COPY = [
  CACHE, 'n=$1', `echo ${ANSWER}`,
  '(umask 077; mkdir -p "$c") || { echo "failed cannot make $c"; exit 0; }',
  't="$c/.$n.$$"',
  'cat >"$t" || { rm -f "$t"; echo "failed cannot write $t"; exit 0; }',
  'chmod 700 "$t"',
  NAME_IT,
].join('\n');

/** The build: stdin is reaper.c; its argument the binary's name. */
const BUILD = [
  CACHE, 'n=$1', `echo ${ANSWER}`,
  '(umask 077; mkdir -p "$c") || { echo "failed cannot make $c"; exit 0; }',
  't="$c/.$n.$$"',
  'cat >"$t.c" || { rm -f "$t.c"; echo "failed cannot write $t.c"; exit 0; }',
  'if ! e=$(cc -O2 -o "$t" "$t.c" 2>&1); then rm -f "$t.c" "$t"; echo "failed cc: $(printf \'%s\' "$e" | tail -n 1)"; exit 0; fi',
  'rm -f "$t.c"',
  NAME_IT,
].join('\n');

/** The probe's command line. */
export function probeLine(copiedName: string, builtName: string): string {
  return shCommand(['sh', '-c', PROBE, 'tai-reaper-probe', copiedName, builtName]);
}

/** The copy's command line (the binary on its stdin). */
export function copyLine(name: string): string {
  return shCommand(['sh', '-c', COPY, 'tai-reaper-copy', name]);
}

/** The build's command line (reaper.c on its stdin). */
export function buildLine(name: string): string {
  return shCommand(['sh', '-c', BUILD, 'tai-reaper-build', name]);
}

/** What the probe found on the host. */
export interface HostFacts {
  /** The cache folder, absolute, as the host's shell expands it. */
  readonly dir: string;
  /** `uname -sm` there. */
  readonly uname: string;
  readonly cc: boolean;
  /** Names of the cache's runnable files among those asked for. */
  readonly have: ReadonlySet<string>;
}

/** The lines after the answer's first line (a banner before it is left out), or undefined without one. */
function answerLines(stdout: string): string[] | undefined {
  const lines = stdout.split('\n');
  const at = lines.indexOf(ANSWER);
  return at < 0 ? undefined : lines.slice(at + 1);
}

/** The probe's answer read, or undefined when it printed nothing readable. */
export function readFacts(stdout: string): HostFacts | undefined {
  const lines = answerLines(stdout);
  if (lines === undefined) return undefined;
  const value = (key: string): string | undefined => lines.find((l) => l.startsWith(`${key} `))?.slice(key.length + 1);
  const dir = value('dir');
  if (dir === undefined) return undefined;
  const have = lines.filter((l) => l.startsWith('have ')).map((l) => l.slice(5));
  return { dir, uname: value('uname') ?? '?', cc: have.includes('cc'), have: new Set(have) };
}

/** A copy's or a build's answer: the file's path on the host, or why it failed. */
export function readPlaced(stdout: string): { readonly path: string } | { readonly failed: string } {
  const lines = answerLines(stdout);
  const ok = lines?.find((l) => l.startsWith('ok '));
  if (ok !== undefined) return { path: ok.slice(3) };
  const failed = lines?.find((l) => l.startsWith('failed '))?.slice(7).trim();
  return { failed: failed || 'the host printed no answer' };
}
