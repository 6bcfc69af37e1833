/**
 * Which git remotes can prove the network back: a remote
 * that is a path on this disk (`/srv/repo.git`, `../repo`, `file://...`)
 * answers whether or not the network is up, so a probe of it proves nothing.
 * git's own rule for telling a URL from a path: a `scheme://` URL, or the
 * scp-like `[user@]host:path` whose colon comes before any slash.
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
