/**
 * Masks what looks like a secret before tai shows or stores it (docs/spec.md, "Event sources"; docs/security.md,
 * "What is masked"): API keys, tokens, passwords, bearer headers, credentials in URLs, private keys. A pattern list that
 * errs on the side of hiding, except where a name only counts (`max_tokens: 4096`); one pass a rule, once per tool
 * event or task, never per token, and every rule starts at a literal or a name.
 */

/** What replaces a secret. */
export const HIDDEN = '[hidden]';

/** The word that makes a name's value a secret in `name=value`, `name: value` and JSON. */
const SECRET_WORD =
  '(?:api[_-]?key|apikey|secret[_-]?key|access[_-]?key|private[_-]?key|client[_-]?secret|auth[_-]?token|access[_-]?token|refresh[_-]?token|token|secret|password|passwd|pwd|credentials?)';

/** A whole name holding that word (`OPENAI_API_KEY`, `db-password`). */
const SECRET_NAME = `(?:[A-Za-z0-9_-]*${SECRET_WORD}[A-Za-z0-9_-]*)`;

/** Names that only count or describe (`max_tokens`, `input_tokens`, `tokenizer`): their value is no secret. */
const COUNT_NAME = /tokens$|tokens?[_-]?(?:count|limit|max|usage|budget)$|tokeniz/i;

/** Ordered: the specific shapes first, the generic name=value last. */
const RULES: ReadonlyArray<readonly [RegExp, string | ((...m: string[]) => string)]> = [
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g, HIDDEN],
  // A named value first, so `OPENAI_API_KEY=sk-...` hides the whole value.
  [new RegExp(`(--${SECRET_NAME}(?:=|\\s+))("[^"]*"|'[^']*'|\\S+)`, 'gi'), (_m, name) => `${name}${HIDDEN}`],
  [
    // From the word on, not from the name's start: a leading `[A-Za-z0-9_-]*` made this rule retry at every
    // character of a long tool result; what precedes the word is kept as it is anyway.
    new RegExp(`((${SECRET_WORD}[A-Za-z0-9_-]*)["']?\\s*[:=]\\s*)(?!"?\\[hidden\\])("(?:[^"\\\\]|\\\\.)*"|'[^']*'|[^\\s,;&}\\]]+)`, 'gi'),
    (m, name, word, value) => (COUNT_NAME.test(word) ? m : `${name}${value.startsWith('"') ? `"${HIDDEN}"` : HIDDEN}`),
  ],
  // A password glued to its flag (`mysql -pSECRET`), or sshpass's; only after the program's name, so `mkdir -p dir` stays.
  [/\b((?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlshow|mariadb)\b[^\n;|&]*?\s-p)(?!\[hidden\])("[^"]*"|'[^']*'|[^\s"']+)/g, (_m, flag) => `${flag}${HIDDEN}`],
  [/\b(sshpass\b[^\n;|&]*?\s-p\s*)(?!\[hidden\])(\S+)/g, (_m, flag) => `${flag}${HIDDEN}`],
  // `aws configure set aws_secret_access_key SECRET`: the name, then the value after a space.
  [/\b(aws\s+configure\s+set\s+(?:[\w-]+\.)?(?:aws_secret_access_key|aws_session_token)\s+)(?!\[hidden\])(\S+)/gi, (_m, name) => `${name}${HIDDEN}`],
  // An AWS secret key given positionally after its access key id: 40 base64 characters, not all lower-case hex (a git SHA).
  [
    /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b([^\n]{0,100}?)(?<![A-Za-z0-9/+=])(?=[A-Za-z0-9/+]{0,39}[A-Zg-z/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g,
    (_m, between) => `${HIDDEN}${between}${HIDDEN}`,
  ],
  // Then the shapes of known secrets wherever they stand.
  [/\b(Bearer|Basic|Token)\s+(?!\[hidden\])[A-Za-z0-9._~+/=-]{8,}/gi, (_m, scheme) => `${scheme} ${HIDDEN}`],
  [/\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}/g, HIDDEN],
  [/\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,}/g, HIDDEN],
  [/\bwhsec_[0-9A-Za-z]{16,}/g, HIDDEN],
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
