/**
 * How `TAI_NOTIFY_HOOK` is run, alike for every notification (src/io/cockpit/notifier.ts, src/io/outage/notify.ts):
 * `$1 $2 $3` are the event, who it is about and the message, whether the hook is a script's path or a command line
 * (docs/agents.md, "Notifications").
 */

/**
 * The hook's argv: `sh -c HOOK tai-notify ARGS` hands the arguments to the line's `$1 $2 $3`, which a plain path
 * would never see; a single word without shell syntax is run as that path (or program on PATH) with them.
 */
export function hookCommand(hook: string, args: readonly string[]): [string, string[]] {
  const plain = hook.trim();
  return /^[\w./+@%,:-]+$/.test(plain) ? [plain, [...args]] : ['/bin/sh', ['-c', hook, 'tai-notify', ...args]];
}
