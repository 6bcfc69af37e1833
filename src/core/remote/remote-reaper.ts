/**
 * `src/core/remote/`: remote agents as data (quoting, host names, the reaper's script, the spool's frames). This
 * file: the POSIX `sh` reaper a remote agent runs under and the command lines that start it on the host and
 * attach to it again; nothing is installed there, the scripts travel in the command line. What it does on the
 * host (spools, sessions, the lifeline, the exit's ack): docs/remote.md, "The reaper on the host: the POSIX `sh` path".
 */
import { shCommand } from './sh-quote.js';

/** Shell functions both scripts use; `d` is the job's folder. */
const PRELUDE = [
  'nap() { sleep 0.2 2>/dev/null || sleep 1; }',
  'sweep() { read -r x <"$d/id" || return; for f in $(grep -l "TAI_REMOTE_RUN=$x" /proc/[0-9]*/environ 2>/dev/null); do q=${f#/proc/}; kill -s "$1" "${q%/environ}" 2>/dev/null; done; }',
  'hard() { read -r p <"$d/pid" && kill -s KILL -- "-$p" 2>/dev/null; sweep KILL; }',
  // The current session's channel ended without the exit acknowledged: the lifeline is lost (after a stop: the hard stop).
  'lifeline() { read -r u <"$d/sess" 2>/dev/null; if [ "$u" = "$t" ] && [ ! -e "$d/ack" ]; then : >"$d/eof"; [ -e "$d/stop" ] && hard; fi; }',
  // What the spool holds of stream $1 past offset $2 as one frame (at most 1 MiB); a: the new offset, n: the spool's size.
  'send() { a=$2; n=$(wc -c <"$d/$1") || exit 0; n=$((n)); if [ "$n" -gt "$a" ]; then k=$((n-a)); [ "$k" -gt 1048576 ] && k=1048576;',
  '  printf "\\001tai %s %s %s\\n" "$1" "$a" "$k"; tail -c +"$((a+1))" "$d/$1" | head -c "$k"; a=$((a+k)); z=1; fi; }',
  // One session: $1 the folder, $2 $3 the bytes of stdout and stderr tai already has.
  'session() {',
  '  d=$1; [ -f "$d/id" ] || { printf "\\001tai gone\\n"; exit 0; }',
  '  t=$$; echo "$t" >"$d/sess.t" && mv -f "$d/sess.t" "$d/sess"; rm -f "$d/eof"; : >"$d/beat"',
  // A session that dies writing to a channel already gone (before its read loop sees the end) ends the lifeline too.
  '  trap \'lifeline; exit 141\' PIPE',
  '  j=$(wc -l <"$d/inq"); j=$((j)); c=0; [ -e "$d/ein" ] && c=1',
  '  printf "\\001tai begin %s %s %s\\n" "$d" "$j" "$c"',
  // The streamer: frames while this session is the current one; the exit frame once the agent ended and all is sent.
  '  ( o=$2 x=$3 fo=0 fe=0; while :; do',
  '    read -r u <"$d/sess" 2>/dev/null; [ "$u" = "$t" ] || { kill "$t" 2>/dev/null; exit 0; }',
  '    r=; [ -e "$d/rc" ] && read -r r <"$d/rc"; z=0',
  '    send o "$o"; o=$a; [ "$a" = "$n" ] && [ "$fo" = 0 ] && [ -e "$d/full.o" ] && { printf "\\001tai full o\\n"; fo=1; }',
  '    send e "$x"; x=$a; [ "$a" = "$n" ] && [ "$fe" = 0 ] && [ -e "$d/full.e" ] && { printf "\\001tai full e\\n"; fe=1; }',
  '    if [ "$z" = 0 ]; then [ -n "$r" ] && { printf "\\001tai x %s\\n" "$r"; exit "$r"; }; nap; fi',
  '  done ) & s=$!',
  '  while IFS= read -r c; do : >"$d/beat"; case $c in',
  '    stop) : >"$d/stop"; read -r p <"$d/pid" && kill -s TERM -- "-$p" 2>/dev/null;; i*) printf "%s\\n" "${c#i}" >>"$d/inq";; e) : >"$d/ein";; ack) : >"$d/ack";; esac; done',
  '  lifeline; wait "$s"; exit $?',
  '}',
].join('\n');

/** The agent's side, detached from the session: spool writers, the agent, its stdin, the watchdog, the cleanup. */
const DAEMON = [
  '(',
  // A spool: the agent's fifo copied into the file as it comes, up to the bound (dd counts it exactly where it
  // can; cat is stopped at it otherwise); then the fifo is held open unread, so the agent's next writes block.
  '  spool() { ( if [ "$dc" = 1 ]; then dd bs=65536 count="$sb" iflag=count_bytes <"$d/p$1" >"$d/$1" 2>/dev/null',
  '    else cat <"$d/p$1" >"$d/$1" & echo $! >"$d/cat.$1"; wait "$!"; fi; : >"$d/done.$1" ) & exec 5<"$d/p$1"',
  '    while [ ! -e "$d/end" ] && [ -d "$d" ]; do if [ ! -e "$d/full.$1" ]; then n=$(wc -c <"$d/$1"); [ "$((n))" -ge "$sb" ] &&',
  '      { [ -e "$d/cat.$1" ] && read -r c <"$d/cat.$1" && kill "$c"; : >"$d/full.$1"; }; fi; nap; done; }',
  '  dc=0; printf x | dd bs=1 count=1 iflag=count_bytes >/dev/null 2>&1 && dc=1',
  '  spool o & spool e &',
  '  if command -v setsid >/dev/null 2>&1; then env TAI_REMOTE_RUN="$id" setsid "$@" <"$d/in" >"$d/po" 2>"$d/pe" & p=$!',
  '  else set -m; env TAI_REMOTE_RUN="$id" "$@" <"$d/in" >"$d/po" 2>"$d/pe" & p=$!; set +m; fi',
  '  echo "$p" >"$d/pid"',
  // The agent's stdin: the lines the sessions queue, in order, then its end.
  '  ( exec 4>"$d/in"; q=0; while [ -d "$d" ]; do f=0; [ -e "$d/ein" ] && f=1; n=$(wc -l <"$d/inq"); n=$((n))',
  '    if [ "$n" -gt "$q" ]; then sed -n "$((q+1)),${n}p" "$d/inq" >&4 || exit 0; q=$n; elif [ "$f" = 1 ]; then exit 0; else nap; fi; done ) & i=$!',
  // The watchdog: the soft stop's grace, the heartbeat, the lifeline's grace; it ends when the folder may go.
  // A folder deleted under the job (a cleaned /tmp) leaves nothing to attach to: the agent is stopped, soft then hard.
  '  ( m=0 o=0 s=0; while [ ! -e "$d/ack" ]; do sleep 1',
  '    [ -d "$d" ] || { kill -s TERM -- "-$p" 2>/dev/null; s=0; while kill -0 -- "-$p" 2>/dev/null && [ "$s" -lt "$g" ]; do sleep 1; s=$((s+1)); done; kill -s KILL -- "-$p" 2>/dev/null; exit 0; }',
  '    [ -e "$d/rc" ] && [ -e "$d/stop" ] && [ -e "$d/eof" ] && exit 0',
  '    if [ -e "$d/stop" ] && [ ! -e "$d/rc" ]; then s=$((s+1)); [ "$s" -ge "$g" ] && hard; fi',
  '    if [ -e "$d/beat" ]; then rm -f "$d/beat"; m=0; else m=$((m+1)); fi',
  '    if [ -e "$d/eof" ] || [ "$m" -ge "$b" ]; then o=$((o+1)); if [ "$o" -ge "$l" ]; then [ -e "$d/rc" ] && exit 0',
  '      [ -e "$d/stop" ] || { : >"$d/stop"; : >"$d/lost"; kill -s TERM -- "-$p" 2>/dev/null; sweep TERM; }; fi; else o=0; fi',
  '  done ) & k=$!',
  '  wait "$p"; rc=$?; hard; freeslot; : >"$d/end"',
  // The writers end at the fifos' end; a descendant that kept one open is not waited for long.
  '  w=0; while [ -d "$d" ] && { [ ! -e "$d/done.o" ] || [ ! -e "$d/done.e" ]; }; do w=$((w+1)); [ "$w" -ge 50 ] && break; nap; done',
  '  echo "$rc" >"$d/rc.t" && mv -f "$d/rc.t" "$d/rc"',
  '  wait "$k"; hard; kill "$i" 2>/dev/null; rm -rf "$d"',
  ') </dev/null >/dev/null 2>&1 &',
].join('\n');

/** What the reaper says on its stderr once the job's folder exists: tai may attach to the job from then on, begin line or not. */
export const JOB_MADE_MARK = '\u0001tai job';

/** The folder of job `$1` on the host (a name tai chose, or a folder's path), into `d`. */
const JOB_DIR = 'jobdir() { case $1 in /*) d=$1;; *) d="${TMPDIR:-/tmp}/tai-run.$1";; esac; }';

/**
 * The job's folder: named by tai (TAI_REMOTE_JOB, so a cut before the begin
 * line can be attached to), else by the reaper's pid; made, then said on stderr.
 */
const MAKE_JOB = [
  'j=${TAI_REMOTE_JOB:-$$}; unset TAI_REMOTE_JOB; case $j in ""|*[!A-Za-z0-9]*) j=$$;; esac; jobdir "$j"',
  'mkdir -m 700 "$d" && mkfifo "$d/in" "$d/po" "$d/pe" || { echo "tai: cannot make $d on the host" >&2; exit 125; }',
  `printf '%s\\n' "$(printf '\\001')tai job" >&2`,
].join('\n');

/**
 * The host's slot (host-slots.ts) handed from the slot shell, which ends with the session, to the agent's side,
 * which lives as long as the job, and freed when the agent ends.
 */
const SLOT_TAKE = 'sl=${TAI_REMOTE_SLOT:-}; unset TAI_REMOTE_SLOT';
const SLOT_HANDOVER = '[ -n "$sl" ] && { echo "$!" >"$d/dpid"; ln -s "$!" "${sl%/*}/.hand.$$" && mv -f "${sl%/*}/.hand.$$" "$sl"; }';
const SLOT_FREE = 'freeslot() { [ -n "$sl" ] && read -r y <"$d/dpid" && q=$(ls -ld "$sl" 2>/dev/null) && [ "${q##*-> }" = "$y" ] && rm -f "$sl"; }';

/** The start script; its arguments: soft grace, lost grace, heartbeat limit (seconds), cwd ('' for home), spool bound (bytes), then the agent's argv. */
export const REMOTE_REAPER = [
  'g=$1 l=$2 b=$3 w=$4 sb=${TAI_REMOTE_SPOOL_BYTES:-$5}; shift 5',
  SLOT_TAKE,
  JOB_DIR,
  MAKE_JOB,
  'if [ -n "$w" ]; then cd -- "$w" || { rm -rf "$d"; exit 125; }; fi',
  ': >"$d/o"; : >"$d/e"; : >"$d/inq"',
  'id="tai-$$-$(date +%s)-x"; echo "$id" >"$d/id"',
  PRELUDE,
  SLOT_FREE,
  DAEMON,
  SLOT_HANDOVER,
  'while [ ! -e "$d/pid" ]; do [ -d "$d" ] || exit 125; nap; done',
  'session "$d" 0 0',
].join('\n');

/** The attach script: a new session of a running job; its arguments: the job (its name or folder), the bytes of stdout and stderr tai has. */
export const REMOTE_ATTACH = [PRELUDE, JOB_DIR, 'jobdir "$1"; session "$d" "$2" "$3"'].join('\n');

/** The clocks of the remote reaper, in whole seconds. */
export interface RemoteClocks {
  /** From the soft stop to the KILL. */
  readonly softGraceS: number;
  /** From the lifeline's loss to the reaper's own stop of the agent (`--host-grace`). */
  readonly lostGraceS: number;
  /** Seconds without a heartbeat that count as the lifeline lost. */
  readonly beatLimitS: number;
}

/**
 * The default clocks (docs/remote.md, "Bounds and clocks"). The lost grace outlasts the outage schedule's first
 * two probes, so a short cut is reattached before the host gives up on tai.
 */
export const REMOTE_CLOCKS: RemoteClocks = { softGraceS: 10, lostGraceS: 600, beatLimitS: 15 };

/** The bound of each spool (the agent's stdout, its stderr) on the host, in bytes; a host may lower it with TAI_REMOTE_SPOOL_BYTES. */
export const REMOTE_SPOOL_BYTES = 64 * 1024 * 1024;

/** Seconds between two heartbeats tai sends; well under the heartbeat limit. */
export const REMOTE_BEAT_S = 2;

/** The command line ssh hands to the host's login shell: the reaper, then the agent's argv, every word quoted. */
export function remoteCommandLine(argv: readonly string[], clocks: RemoteClocks = REMOTE_CLOCKS, cwd = ''): string {
  const whole = (n: number): string => String(Math.max(1, Math.ceil(n)));
  return `exec ${shCommand(['sh', '-c', REMOTE_REAPER, 'tai-remote', whole(clocks.softGraceS), whole(clocks.lostGraceS), whole(clocks.beatLimitS), cwd, String(REMOTE_SPOOL_BYTES), ...argv])}`;
}

/** The command line that attaches a new session to the job (its name, or its folder `dir`), reading on from the given offsets. */
export function attachCommandLine(dir: string, stdoutOffset: number, stderrOffset: number): string {
  return `exec ${shCommand(['sh', '-c', REMOTE_ATTACH, 'tai-attach', dir, String(stdoutOffset), String(stderrOffset)])}`;
}

/** A job name tai chooses before the host answers: letters and digits only (the host's folder is `tai-run.NAME`). */
export function isJobName(name: string): boolean {
  return /^[A-Za-z0-9]{1,64}$/.test(name);
}

/** A start command line (the slot's, the reaper's) whose job gets the folder of `job`, so tai can attach to it before its begin line. */
export function namedStartLine(commandLine: string, job: string): string {
  if (!isJobName(job)) throw new Error(`a remote job name is letters and digits only: ${JSON.stringify(job)}`);
  return `TAI_REMOTE_JOB=${job}; export TAI_REMOTE_JOB; ${commandLine}`;
}
