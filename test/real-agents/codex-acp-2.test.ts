/** The real @agentclientprotocol/codex-acp adapter under tai (test/real-agents/scenarios.ts). */
import { realAgentSuite } from './scenarios.js';
import { NEVER_ASKS } from './scenarios.js';

realAgentSuite('codex-acp-2', { permission: NEVER_ASKS });
