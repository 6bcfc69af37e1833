/**
 * A JSON-RPC error `{code, message, data}` as an agent failure (ACP agents' turns, Codex's `error` events): its
 * kind from `data.errorKind`, `data.codexErrorInfo` or code 429, else its words alone (docs/agents.md, "The real
 * agents, tested").
 */
import type { AgentFailure } from '../outage/classify.js';
import { numeric } from '../outage/reset-time.js';
import { isObject, str, type Json } from './json.js';

/** Codex's names of a rate limit and of the model service failing (codex-acp's `codexErrorInfo`). */
const CODEX_RATE_LIMIT = ['usageLimitExceeded', 'rateLimitExceeded'];
const CODEX_MODEL_DOWN = ['serverOverloaded', 'internalServerError'];
/** codexErrorInfo's transport failures; their `httpStatusCode` decides, and without one the connection was lost. */
const CODEX_TRANSPORT = ['httpConnectionFailed', 'responseStreamConnectionFailed', 'responseStreamDisconnected', 'responseTooManyFailedAttempts'];

/** A JSON-RPC error object (or a response carrying one in `error`) as an agent failure. */
export function rpcErrorFailure(error: Json): AgentFailure {
  if (isObject(error['error']) && error['code'] === undefined) return rpcErrorFailure(error['error']);
  // An Anthropic error body names its kind in `type` ("overloaded_error"); Codex's `type: "error"` says nothing.
  const type = typeof error['type'] === 'string' && error['type'] !== 'error' ? `${error['type']}: ` : '';
  const words = str(error, 'message');
  const message = words === undefined ? JSON.stringify(error) : `${type}${words}`;
  const data = isObject(error['data']) ? error['data'] : {};
  switch (data['errorKind']) {
    case 'rate_limit':
      return { kind: 'rate_limit', named: 'errorKind rate_limit', message };
    case 'overloaded':
      return { kind: 'model', named: 'errorKind overloaded', message };
    case 'transport_lost':
      return { kind: 'network', named: 'errorKind transport_lost', message };
    default:
      break;
  }
  // codex-acp 0.16 writes it snake case (`codex_error_info: "internal_server_error"`).
  const codex = codexErrorInfo(camelCase(data['codexErrorInfo'] ?? data['codex_error_info']));
  if (codex !== undefined) return { ...codex, message };
  if (error['code'] === 429) return { kind: 'rate_limit', named: 'code 429', message };
  return { message };
}

/** codexErrorInfo: a name, or a one-key object naming a transport failure. */
function codexErrorInfo(info: unknown): Omit<AgentFailure, 'message'> | undefined {
  if (typeof info === 'string') {
    if (CODEX_RATE_LIMIT.includes(info)) return { kind: 'rate_limit', named: info };
    if (CODEX_MODEL_DOWN.includes(info)) return { kind: 'model', named: info };
    return undefined;
  }
  if (!isObject(info)) return undefined;
  const [name, payload] = Object.entries(info)[0] ?? [];
  if (name === undefined || !CODEX_TRANSPORT.includes(name)) return undefined;
  const status = isObject(payload) ? numeric(payload['httpStatusCode']) : undefined;
  return status === undefined ? { kind: 'network', named: name } : { named: name, status };
}

/** A Codex error info with snake-case names (`response_too_many_failed_attempts: {http_status_code}`) in camel case. */
function camelCase(value: unknown): unknown {
  const camel = (name: string): string => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
  if (typeof value === 'string') return camel(value);
  if (!isObject(value) || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [camel(k), camelCase(v)]));
}
