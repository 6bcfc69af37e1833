/** The real claude CLI under tai (test/real-agents/scenarios.ts). */
import { realAgentSuite } from './scenarios.js';

realAgentSuite('claude', {
  permission: 'claude -p never asks: it refuses writes outside the allowed directories itself (result.permission_denials); tai has no request to answer',
});
