/**
 * Masks what looks like a secret in a tool's arguments before it reaches a
 * panel (seed 001, section 4.4: "with secrets masked"): API keys, tokens,
 * passwords, bearer headers, credentials in URLs, private keys. A pattern
 * list, so it errs on the side of hiding: a panel is a view, never a store.
 */

/** What replaces a secret. */
export const HIDDEN = '[hidden]';

/** Names whose value is a secret in `name=value`, `name: value` and JSON. */
const SECRET_NAME =
  '(?:[A-Za-z0-9_-]*(?:api[_-]?key|apikey|secret[_-]?key|access[_-]?key|private[_-]?key|client[_-]?secret|auth[_-]?token|access[_-]?token|refresh[_-]?token|token|secret|password|passwd|pwd|credentials?)[A-Za-z0-9_-]*)';

/** Ordered: the specific shapes first, the generic name=value last. */
const RULES: ReadonlyArray<readonly [RegExp, string | ((...m: string[]) => string)]> = [
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g, HIDDEN],
  // A named value first, so `OPENAI_API_KEY=sk-...` hides the whole value.
  [new RegExp(`(--${SECRET_NAME}(?:=|\\s+))("[^"]*"|'[^']*'|\\S+)`, 'gi'), (_m, name) => `${name}${HIDDEN}`],
  [
    new RegExp(`(["']?${SECRET_NAME}["']?\\s*[:=]\\s*)(?!"?\\[hidden\\])("(?:[^"\\\\]|\\\\.)*"|'[^']*'|[^\\s,;&}\\]]+)`, 'gi'),
    (_m, name, value) => `${name}${value.startsWith('"') ? `"${HIDDEN}"` : HIDDEN}`,
  ],
  // Then the shapes of known secrets wherever they stand.
  [/\b(Bearer|Basic|Token)\s+(?!\[hidden\])[A-Za-z0-9._~+/=-]{8,}/gi, (_m, scheme) => `${scheme} ${HIDDEN}`],
  [/\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}/g, HIDDEN],
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, HIDDEN],
  [/\bgh[pousr]_[A-Za-z0-9]{20,}\b/g, HIDDEN],
  [/\bgithub_pat_[A-Za-z0-9_]{20,}\b/g, HIDDEN],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/g, HIDDEN],
  [/\bAIza[0-9A-Za-z_-]{35}\b/g, HIDDEN],
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, HIDDEN],
  [/(:\/\/[^\s:/@]+:)[^\s@/]+@/g, (_m, user) => `${user}${HIDDEN}@`],
];

/** The text with every secret-looking value replaced by HIDDEN. */
export function maskSecrets(text: string): string {
  let out = text;
  for (const [pattern, replacement] of RULES) {
    out = typeof replacement === 'string' ? out.replace(pattern, replacement) : out.replace(pattern, replacement as (...m: string[]) => string);
  }
  return out;
}
