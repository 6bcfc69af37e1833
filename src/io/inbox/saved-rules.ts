/**
 * Inbox rules saved to the agents registry file (docs/agents-registry.md, "Saved rules"): appended to or dropped
 * from its `rules`, the rest kept, and held again by a starting cockpit until they expire. The file is replaced
 * whole (written beside, renamed), so a crash leaves the old file or the new.
 */
import { readFileSync, renameSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseRegistry, RegistryError } from '../../core/agents/agent-registry.js';
import { messageOf } from '../../core/errors.js';
import { ruleJson, sameRule } from '../../core/inbox/rule-json.js';
import type { RuleSpec } from '../../core/inbox/rules.js';
import { configPath } from '../agents/spawn/agent-config.js';

/** The rules saved in the registry at `path` (none when there is no file); throws RegistryError for a file that cannot be used. */
export function savedRules(env: NodeJS.ProcessEnv = process.env, path: string = configPath(env)): readonly RuleSpec[] {
  const json = readJson(path);
  return json === undefined ? [] : (parseRegistry(json, path).rules ?? []);
}

/** Appends `spec` to the registry's rules. */
export function saveRule(spec: RuleSpec, env: NodeJS.ProcessEnv = process.env, path: string = configPath(env)): void {
  const json = readJson(path) ?? { agents: {} };
  parseRegistry(json, path); // a file that breaks the schema is not written over
  const rules = Array.isArray(json['rules']) ? json['rules'] : [];
  writeJson(path, { ...json, rules: [...rules, ruleJson(spec)] });
}

/** Removes the saved rules equal to `spec`; true when one was there. */
export function unsaveRule(spec: RuleSpec, env: NodeJS.ProcessEnv = process.env, path: string = configPath(env)): boolean {
  const json = readJson(path);
  if (json === undefined) return false;
  const registry = parseRegistry(json, path);
  const kept = (registry.rules ?? []).filter((r) => !sameRule(r, spec));
  if (kept.length === (registry.rules ?? []).length) return false;
  writeJson(path, { ...json, rules: kept.map(ruleJson) });
  return true;
}

function readJson(path: string): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if (err instanceof Error && 'code' in err && err.code === 'ENOENT') return undefined;
    throw new RegistryError(path, '', `cannot be read (${messageOf(err)})`);
  }
  try {
    const json: unknown = JSON.parse(text.replace(/^\uFEFF/, ''));
    if (typeof json === 'object' && json !== null && !Array.isArray(json)) return json as Record<string, unknown>;
  } catch (err) {
    throw new RegistryError(path, '', `is not valid JSON (${messageOf(err)}); fix it before saving a rule there`);
  }
  throw new RegistryError(path, '', 'must hold a JSON object like {"agents": {...}}');
}

function writeJson(path: string, json: Record<string, unknown>): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  let mode = 0o600;
  try {
    mode = statSync(path).mode & 0o777;
  } catch {
    // A new file: the owner's alone.
  }
  const tmp = `${path}.tai-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(json, null, 2)}\n`, { mode });
  renameSync(tmp, path);
}
