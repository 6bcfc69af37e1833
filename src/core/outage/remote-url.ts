/**
 * Which git remotes can prove the network back: a path on this disk (`../repo`, `file://...`) answers either way.
 * git's own rule tells a URL from a path: `scheme://`, or scp-like `[user@]host:path` with the colon before any slash.
 */

/** True when `url` reaches another machine over the network (not a path, not file://). */
export function isNetworkRemote(url: string): boolean {
  const u = url.trim();
  if (u === '') return false;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(u);
  if (scheme) return scheme[1]?.toLowerCase() !== 'file';
  const colon = u.indexOf(':');
  const slash = u.indexOf('/');
  // scp-like syntax: a colon before the first slash (and not a one-letter drive on another OS).
  return colon > 1 && (slash === -1 || colon < slash);
}
