/**
 * The folder `src/io/link/`: a cockpit split into a server that owns everything and thin clients that own a terminal
 * each (docs/protocol.md, "The client link"). This file: where a user's cockpits are found, by name: a card claimed with
 * O_EXCL (two cockpits started at once cannot share a name) in the checked socket folder, live while its very process
 * runs (pid and start time: a recycled pid holds no name); a dead one is removed with its sockets when found.
 */
import { lstatSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { messageOf } from '../../core/errors.js';
import { processStart, sameProcessAlive, startedAtMs } from '../process-identity.js';
import { checkSocketDir, fallbackSocketDir, ownedByUser, processAlive, socketDir } from '../socket/socket-path.js';

/** A name a cockpit may have: it is a file name and a word on the command line. */
export const COCKPIT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$/;

/** What a cockpit's card says. */
export interface CockpitCard {
  readonly name: string;
  readonly pid: number;
  /** The process's start (process-identity.ts), so that a reused pid is not taken for it; absent where /proc is. */
  readonly start?: string;
  /** The link socket clients attach to; absent for a cockpit in one process. */
  readonly link?: string;
  /** The control socket (tai spawn, status, ...), when it has one. */
  readonly control?: string;
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly startedAt: number;
}

/** A cockpit name or its card cannot be had; the message says what to do. */
export class CockpitNameError extends Error {
  override readonly name = 'CockpitNameError';
}

const CARD = /^cockpit-(.+)\.json$/;

/** The start of this process, for its card (undefined without /proc). */
export function ownStart(): { readonly start?: string } {
  const start = processStart(process.pid);
  return start === undefined ? {} : { start };
}

/** True while the card's very process runs: its pid, not a zombie, with the start the card holds. */
export function cardAlive(card: CockpitCard): boolean {
  if (!processAlive(card.pid)) return false;
  return card.start === undefined || sameProcessAlive({ pid: card.pid, start: card.start });
}

/**
 * Removes a stale card and the sockets it names, those of this user only,
 * and only when made before a process now holding the pid started (a new
 * server of that pid listens on the same path).
 */
export function sweepCard(path: string, card: CockpitCard): void {
  removeFile(path);
  const since = processAlive(card.pid) ? startedAtMs(card.pid) : 0;
  for (const socket of [card.link, card.control]) {
    if (socket === undefined || !ownedByUser(socket, 'socket')) continue;
    // Two seconds of slack: /proc's boot time is in whole seconds.
    if (since === undefined || (since > 0 && (lstatSync(socket, { throwIfNoEntry: false })?.mtimeMs ?? 0) >= since - 2_000)) continue;
    removeFile(socket);
  }
}

/**
 * Why the client must not connect to the card's link, or undefined: it is a socket of this user closed to everyone
 * else, as the cockpit made it; anything else may be another user's listener, which would be sent this terminal's path.
 */
export function linkProblem(card: CockpitCard): string | undefined {
  if (card.link === undefined) return `cockpit ${card.name} runs in one process (no terminal, or TAI_SERVER=0): it cannot be attached; tai status -t ${card.name} and tai logs reach it`;
  return socketProblem(card, 'link', card.link);
}

/** Why the client must not talk to a socket a card names (its `link` or `control`), or undefined: the same check as linkProblem's. */
export function socketProblem(card: CockpitCard, what: 'link' | 'control socket', path: string): string | undefined {
  const st = lstatSync(path, { throwIfNoEntry: false });
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  if (st === undefined) return `cockpit ${card.name} has no ${what} at ${path} (it is starting, or it failed: see its log)`;
  if (!st.isSocket() || st.uid !== uid || (st.mode & 0o077) !== 0) {
    return `cockpit ${card.name}'s ${what} ${path} is not a private socket of yours (owner ${st.uid}, mode ${(st.mode & 0o777).toString(8)}); refusing to connect: remove its card ${card.name} if you did not make it`;
  }
  return undefined;
}

/** The card's path for a cockpit named `name` in `dir`. */
export function cardPath(dir: string, name: string): string {
  return join(dir, `cockpit-${name}.json`);
}

/** Null when `name` may name a cockpit, else why not. */
export function badName(name: string): string | null {
  return COCKPIT_NAME.test(name) ? null : `a cockpit's name is 1 to 32 letters, digits, '.', '_' or '-', starting with a letter or digit; got '${name}'`;
}

/** The name a cockpit gets when none is given: its program's, made a valid name. */
export function baseName(argv: readonly string[]): string {
  const program = basename(argv[0] ?? 'tai').replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[^A-Za-z0-9]+/, '');
  return program.slice(0, 24) || 'tai';
}

/**
 * Claims `name` (or, with `unique`, the first of `name`, `name-2`, `name-3`
 * ... that is free) by writing the card exclusively; returns the card's path.
 * A card of a cockpit that is gone is replaced; a live one refuses.
 */
export function claimCard(dir: string, card: Omit<CockpitCard, 'name'> & { readonly name: string }, unique: boolean): { path: string; name: string } {
  for (let n = 1; n <= 99; n++) {
    const name = n === 1 ? card.name : `${card.name.slice(0, 28)}-${n}`;
    const path = cardPath(dir, name);
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        writeFileSync(path, `${JSON.stringify({ ...card, name })}\n`, { flag: 'wx', mode: 0o600 });
        return { path, name };
      } catch (err) {
        if ((err as { code?: unknown }).code !== 'EEXIST') throw new CockpitNameError(`cannot write ${path}: ${messageOf(err)}`);
        const held = readCard(path);
        if (held !== undefined && cardAlive(held)) break; // taken
        if (held === undefined) removeFile(path);
        else sweepCard(path, held); // left by a cockpit that is gone
      }
    }
    if (!unique) throw new CockpitNameError(`a cockpit named '${name}' is already running: tai attach ${name} shows it, or choose another name with -s`);
  }
  throw new CockpitNameError(`no free name like '${card.name}': end some cockpits (tai ls, tai kill NAME) or choose a name with -s`);
}

/** Reads a card; undefined when it is missing or not a card. */
export function readCard(path: string): CockpitCard | undefined {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as Partial<CockpitCard>;
    if (typeof v.name !== 'string' || typeof v.pid !== 'number') return undefined;
    return {
      name: v.name,
      pid: v.pid,
      ...(typeof v.start === 'string' ? { start: v.start } : {}),
      ...(typeof v.link === 'string' ? { link: v.link } : {}),
      ...(typeof v.control === 'string' ? { control: v.control } : {}),
      argv: Array.isArray(v.argv) ? v.argv.map(String) : [],
      cwd: typeof v.cwd === 'string' ? v.cwd : '',
      startedAt: typeof v.startedAt === 'number' ? v.startedAt : 0,
    };
  } catch {
    return undefined;
  }
}

/** Rewrites a claimed card (the control socket is known only after the card was claimed). */
export function updateCard(path: string, card: CockpitCard): void {
  writeFileSync(path, `${JSON.stringify(card)}\n`, { mode: 0o600 });
}

/** Removes a file, ignoring one that is gone. */
export function removeFile(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Gone already.
  }
}

/** The folders a user's cockpits may be in: the socket folder, then the fallback. */
export function cardDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  return [...new Set([socketDir(env), fallbackSocketDir(env)])];
}

/** The running cockpits of this user, oldest first; cards of cockpits that are gone are removed. */
export function runningCockpits(env: NodeJS.ProcessEnv = process.env): CockpitCard[] {
  const cards: CockpitCard[] = [];
  for (const dir of cardDirs(env)) {
    try {
      checkSocketDir(dir);
    } catch {
      continue; // missing, or not safe to trust: the control client names a refused folder
    }
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const file of names) {
      if (!CARD.test(file)) continue;
      const path = join(dir, file);
      if (!ownedByUser(path, 'file')) continue;
      const card = readCard(path);
      if (card === undefined) continue;
      if (cardAlive(card)) cards.push(card);
      else sweepCard(path, card);
    }
  }
  return cards.sort((a, b) => a.startedAt - b.startedAt);
}

/** The running cockpit named `name`, or a CockpitNameError that lists the running ones. */
export function findCockpit(name: string, env: NodeJS.ProcessEnv = process.env): CockpitCard {
  const all = runningCockpits(env);
  const found = all.find((c) => c.name === name);
  if (found) return found;
  const names = all.map((c) => c.name);
  throw new CockpitNameError(names.length === 0 ? `no cockpit named '${name}' is running (none is: start one with tai)` : `no cockpit named '${name}' is running; running: ${names.join(', ')} (tai ls)`);
}

/**
 * The cockpit `tai attach` means: the one named, or the only one running
 * but `inside` (the cockpit this shell runs in, never a choice); several
 * and none named is a refusal that lists them.
 */
export function chooseCockpit(name: string | undefined, env: NodeJS.ProcessEnv = process.env, inside?: string): CockpitCard {
  if (name !== undefined) return findCockpit(name, env);
  const all = runningCockpits(env).filter((c) => c.name !== inside);
  const [only] = all;
  if (all.length === 1 && only) return only;
  if (all.length === 0) throw new CockpitNameError(inside === undefined ? 'no cockpit is running: start one with tai (tai ls lists them)' : `no cockpit is running but ${inside}, which this shell runs in: attach it from another terminal`);
  throw new CockpitNameError(`${all.length} cockpits are running; name one (tai attach NAME):\n${all.map((c) => `  ${c.name}  pid ${c.pid}  ${c.argv.join(' ')}  ${c.cwd}`).join('\n')}`);
}
