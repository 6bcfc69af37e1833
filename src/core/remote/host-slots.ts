/**
 * The cap counted on the machine an agent runs on (docs/remote.md, "The cap per host"): slots claimed on the host,
 * so every tai sending agents there counts the same. A slot is a symlink `N -> PID` made with `ln -s`, which fails
 * when the name exists, so the claim is atomic without flock; a slot whose PID is gone is swept by the next claim.
 */
import { AGENTS_MAX_PARALLEL } from '../policy.js';
import { shCommand } from './sh-quote.js';

/** The folder of a host's slots, for the host's shell: under the remote user's cache, 0700. */
export const HOST_SLOT_DIR = '"${XDG_CACHE_HOME:-$HOME/.cache}/tai/slots"';

/** Exit code of a spawn refused at a host's cap (EX_TEMPFAIL, as the local cap's). */
export const HOST_FULL_EXIT = 75;

/** The message of the 9th agent on one host: the local cap's words, naming the host. */
export function hostFullMessage(host: string, running: number, limit: number = AGENTS_MAX_PARALLEL): string {
  return `too many agents on ${host}: ${running} are running and the limit is ${limit}; wait for one to finish or cancel one (tai cancel ID)`;
}

/** Shell lines shared by the claim and the count: make the folder, sweep the slots of dead shells. */
const SWEEP = [
  `s=${HOST_SLOT_DIR}`,
  '(umask 077; mkdir -p "$s") || { echo "tai: cannot make $s on the host" >&2; exit 125; }',
  'for x in "$s"/*; do [ -h "$x" ] || continue; q=$(ls -ld "$x" 2>/dev/null); q=${q##*-> }',
  // Moved aside before it is removed: a slot claimed again meanwhile is put back, never deleted.
  '  case $q in *[!0-9]*|"") continue;; esac; kill -0 "$q" 2>/dev/null && continue',
  '  t="$s/.gone.$$"; mv "$x" "$t" 2>/dev/null || continue; y=$(ls -ld "$t"); y=${y##*-> }',
  '  if [ "$y" = "$q" ]; then rm -f "$t"; else mv "$t" "$x" 2>/dev/null || rm -f "$t"; fi',
  'done',
].join('\n');

/**
 * The slot shell's script (arguments: the limit, the host's name, the command line to run). It claims the first
 * free slot, runs the command with the channel as stdin, frees the slot and exits with its status; at the cap
 * it says so on stderr and exits HOST_FULL_EXIT.
 */
export const HOST_SLOT_SCRIPT = [
  'n=$1 h=$2 c=$3',
  SWEEP,
  'i=1; while [ "$i" -le "$n" ]; do ln -s "$$" "$s/$i" 2>/dev/null && break; i=$((i+1)); done',
  `if [ "$i" -gt "$n" ]; then echo "tai: too many agents on $h: $n are running and the limit is $n; wait for one to finish or cancel one (tai cancel ID)" >&2; exit ${HOST_FULL_EXIT}; fi`,
  // Freed however the reaper ends, unless the reaper took it over for its job (it then points elsewhere);
  // a SIGKILLed slot shell leaves a stale slot the next claim sweeps.
  'trap \'q=$(ls -ld "$s/$i" 2>/dev/null); [ "${q##*-> }" = "$$" ] && rm -f "$s/$i"\' EXIT',
  'trap \'exit 129\' HUP; trap \'exit 143\' TERM',
  'TAI_REMOTE_SLOT="$s/$i" sh -c "$c"; rc=$?',
  'exit "$rc"',
].join('\n');

/** The count's script: sweeps, then prints how many slots are live. */
export const HOST_COUNT_SCRIPT = [SWEEP, 'k=0; for x in "$s"/*; do [ -h "$x" ] && k=$((k+1)); done', 'echo "tai-slots $k"'].join('\n');

/** `commandLine` (the reaper's) run inside a slot of `host`'s `limit`. */
export function slotCommandLine(commandLine: string, host: string, limit: number = AGENTS_MAX_PARALLEL): string {
  return `exec ${shCommand(['sh', '-c', HOST_SLOT_SCRIPT, 'tai-slot', String(limit), host, commandLine])}`;
}

/** The command line that counts a host's live slots. */
export function countCommandLine(): string {
  return shCommand(['sh', '-c', HOST_COUNT_SCRIPT, 'tai-slots']);
}

/** The count in the count's output (a banner may come before it), or undefined. */
export function readCount(stdout: string): number | undefined {
  const m = /(?:^|\n)tai-slots (\d+)\n?$/.exec(stdout);
  return m ? Number(m[1]) : undefined;
}
