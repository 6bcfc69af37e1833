/**
 * The real @agentclientprotocol/codex-acp adapter under tai
 * (test/real-agents/scenarios.ts); its outages are codex-acp-outages.test.ts.
 */
import { NEVER_ASKS, realAgentSuite } from './scenarios.js';

realAgentSuite('codex-acp-2', { permission: NEVER_ASKS, ask: 'codex-acp 2.6 with sandbox_mode danger-full-access never asks (no question in 90 s under --permissions ask)' });
