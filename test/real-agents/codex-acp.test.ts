/** The real codex-acp CLI under tai (test/real-agents/scenarios.ts). */
import { NEVER_ASKS, realAgentSuite } from './scenarios.js';

realAgentSuite('codex-acp', { permission: NEVER_ASKS, ask: 'codex-acp 0.16 never asks (no session/request_permission seen)' });
