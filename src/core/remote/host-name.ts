/**
 * A host as `ssh` understands it (a name of the user's ssh config, `user@host`,
 * `ssh://user@host:port`, an address), checked before it reaches ssh's
 * command line: it must never be read as an option or hold anything a shell
 * would act on.
 */

/** The characters a host may hold: names, users, ports, IPv6 brackets, ssh:// URLs. */
const HOST_CHARS = /^[A-Za-z0-9_.@:%+\[\]/-]+$/;

/** The longest host accepted (a DNS name's limit, with room for user and port). */
export const HOST_MAX = 300;

/** A host refused, with what to give instead. */
export class BadHostError extends Error {
  override readonly name = 'BadHostError';
  constructor(readonly host: string, why: string) {
    super(`--host ${JSON.stringify(host)} ${why}; give a name of your ssh config, user@host or ssh://user@host:port`);
  }
}

/** The host unchanged when ssh may be given it; throws BadHostError otherwise. */
export function checkHost(host: string): string {
  if (host === '') throw new BadHostError(host, 'is empty');
  if (host.length > HOST_MAX) throw new BadHostError(host.slice(0, 40) + '…', `is longer than ${HOST_MAX} characters`);
  if (host.startsWith('-')) throw new BadHostError(host, "starts with '-', which ssh would read as an option");
  if (/\s/.test(host)) throw new BadHostError(host, 'holds whitespace');
  const bad = [...host].find((ch) => !HOST_CHARS.test(ch));
  if (bad !== undefined) throw new BadHostError(host, `holds ${JSON.stringify(bad)}, a character no host name has`);
  return host;
}
