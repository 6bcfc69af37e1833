/** Reading the CLIs' request bodies without `any`: plain JSON walked by key. */

/** A parsed JSON value. */
export type Json = unknown;

/** The value at `path` under `value` (object keys or array indexes), or undefined. */
export function at(value: Json, ...path: (string | number)[]): Json {
  let here: Json = value;
  for (const key of path) {
    if (typeof here !== 'object' || here === null) return undefined;
    here = (here as Record<string | number, Json>)[key];
  }
  return here;
}

/** The array at `path`, or an empty one. */
export function list(value: Json, ...path: (string | number)[]): Json[] {
  const found = at(value, ...path);
  return Array.isArray(found) ? found : [];
}

/** The string at `path`, or undefined. */
export function text(value: Json, ...path: (string | number)[]): string | undefined {
  const found = at(value, ...path);
  return typeof found === 'string' ? found : undefined;
}

/** A JSON value of the kind a JSON schema asks for (the first enum value, the minimum, empty arrays). */
export function sampleOf(schema: Json): Json {
  const choices = list(schema, 'enum');
  if (choices.length > 0) return choices[0];
  const type = String(at(schema, 'type') ?? 'string').toLowerCase();
  if (type === 'object') {
    const props = at(schema, 'properties');
    const out: Record<string, Json> = {};
    if (typeof props === 'object' && props !== null) for (const [k, v] of Object.entries(props)) out[k] = sampleOf(v);
    return out;
  }
  if (type === 'array') return [];
  if (type === 'boolean') return false;
  if (type === 'number' || type === 'integer') return at(schema, 'minimum') ?? 0;
  return 'ok';
}
