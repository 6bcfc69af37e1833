/**
 * `src/core/remote/`: remote agents as data (quoting, host names, the reaper's script).
 * This file: the POSIX `sh` reaper a remote agent runs under (docs/remote.md), and the
 * one command line that starts it on the host. Nothing is installed there:
 * the script travels in the command line.
 *
 * On the host it:
 * - starts the agent in a session and process group of its own (setsid; job
 *   control when setsid is missing), marked by TAI_REMOTE_RUN in its
 *   environment so that descendants that left its group are found too
 *   (/proc/PID/environ, on Linux hosts);
 * - reads control lines on its stdin (the ssh channel), each also a
 *   heartbeat: `i` + a line for the agent's stdin (a fifo), `e` its end,
 *   `stop` the soft stop (TERM to the group, KILL to the group and the
 *   marked after the grace);
 * - treats the end of its stdin, or no heartbeat for a while, as the lifeline
 *   gone: after a stop that is the hard stop (KILL at once); otherwise it
 *   waits the lost grace for tai and then stops the agent itself;
 * - when the agent ends, kills what it left and exits with its status.
 */
import { shCommand } from './sh-quote.js';

/** The script; its arguments: soft grace, lost grace, heartbeat limit (seconds), cwd ('' for home), then the agent's argv. */
export const REMOTE_REAPER = [
  'g=$1 l=$2 b=$3 w=$4; shift 4',
  'd="${TMPDIR:-/tmp}/tai-run.$$"',
  'mkdir -m 700 "$d" && mkfifo "$d/in" || { echo "tai: cannot make $d on the host" >&2; exit 125; }',
  'if [ -n "$w" ]; then cd -- "$w" || { rm -rf "$d"; exit 125; }; fi',
  'id="tai-$$-$(date +%s)-x"',
  'sweep() { for f in $(grep -l "TAI_REMOTE_RUN=$id" /proc/[0-9]*/environ 2>/dev/null); do q=${f#/proc/}; kill -s "$1" "${q%/environ}" 2>/dev/null; done; }',
  'hard() { kill -s KILL -- "-$p" 2>/dev/null; sweep KILL; }',
  'exec 3<&0',
  'if command -v setsid >/dev/null 2>&1; then env TAI_REMOTE_RUN="$id" setsid "$@" <"$d/in" & p=$!',
  'else set -m; env TAI_REMOTE_RUN="$id" "$@" <"$d/in" & p=$!; set +m; fi',
  // The control reader: the agent's stdin lines (i...), its end (e), stop, heartbeats; then the end of the channel.
  '( exec 4>"$d/in"; while IFS= read -r c; do : >"$d/beat"; case $c in',
  '  stop) : >"$d/stop"; kill -s TERM -- "-$p";; i*) printf "%s\\n" "${c#i}" >&4;; e) exec 4>&-;; esac; done',
  '  : >"$d/eof"; if [ -e "$d/stop" ]; then hard; fi ) <&3 >/dev/null 2>&1 & r=$!',
  'exec 3<&-',
  // The watchdog: the soft stop's grace, the heartbeat, the lifeline's grace.
  '( m=0 o=0 s=0; while kill -0 "$p" 2>/dev/null; do sleep 1',
  '  if [ -e "$d/stop" ]; then s=$((s+1)); [ "$s" -ge "$g" ] && hard; continue; fi',
  '  if [ -e "$d/beat" ]; then rm -f "$d/beat"; m=0; else m=$((m+1)); fi',
  '  if [ -e "$d/eof" ] || [ "$m" -ge "$b" ]; then o=$((o+1)); if [ "$o" -ge "$l" ]; then : >"$d/stop"; kill -s TERM -- "-$p"; sweep TERM; fi; else o=0; fi',
  'done ) >/dev/null 2>&1 & k=$!',
  // Let go of the channel: with it gone, the shell's own "Terminated" would be its SIGPIPE before the cleanup.
  'exec >/dev/null 2>&1',
  'wait "$p"; rc=$?',
  'kill -s KILL -- "-$p" 2>/dev/null; sweep KILL; kill "$r" "$k" 2>/dev/null; rm -rf "$d"',
  'exit "$rc"',
].join('\n');

/** The clocks of the remote reaper, in whole seconds. */
export interface RemoteClocks {
  /** From the soft stop to the KILL. */
  readonly softGraceS: number;
  /** From the lifeline's loss to the reaper's own stop of the agent. */
  readonly lostGraceS: number;
  /** Seconds without a heartbeat that count as the lifeline lost. */
  readonly beatLimitS: number;
}

/** The default clocks (docs/remote.md). */
export const REMOTE_CLOCKS: RemoteClocks = { softGraceS: 10, lostGraceS: 60, beatLimitS: 15 };

/** Seconds between two heartbeats tai sends; well under the heartbeat limit. */
export const REMOTE_BEAT_S = 2;

/** The command line ssh hands to the host's login shell: the reaper, then the agent's argv, every word quoted. */
export function remoteCommandLine(argv: readonly string[], clocks: RemoteClocks = REMOTE_CLOCKS, cwd = ''): string {
  const whole = (n: number): string => String(Math.max(1, Math.ceil(n)));
  return `exec ${shCommand(['sh', '-c', REMOTE_REAPER, 'tai-remote', whole(clocks.softGraceS), whole(clocks.lostGraceS), whole(clocks.beatLimitS), cwd, ...argv])}`;
}
