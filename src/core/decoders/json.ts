/**
 * Reading parsed protocol messages without `any`: a decoder narrows each
 * field it uses, so a malformed message maps to nothing rather than throwing.
 */

/** A JSON object, for decoders reading parsed protocol messages. */
export type Json = { readonly [key: string]: unknown };

/** True when `v` is a non-null, non-array object. */
export function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `v[key]` as a string, or undefined. */
export function str(v: Json, key: string): string | undefined {
  const x = v[key];
  return typeof x === 'string' ? x : undefined;
}

/** `v[key]` as a finite number, or undefined. */
export function num(v: Json, key: string): number | undefined {
  const x = v[key];
  return typeof x === 'number' && Number.isFinite(x) ? x : undefined;
}

/** A value as one line of JSON for a tool's arguments (strings as they are). */
export function argsText(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  try {
    return JSON.stringify(v) ?? '';
  } catch {
    return String(v);
  }
}
