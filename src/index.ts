/**
 * tai as a library (docs/embedding.md): the one entry point and the whole public API; anything not exported here is
 * private and may change. The board and its clock (`createDashboard` builds both with screens), agents
 * (`startAgentService`, runners), views for a host Ink app (a headless host reads `board.subscribe`, `status(now)`,
 * `tapEvents`), and the cockpit itself (`runCockpit`, `startCockpit`, `createCockpitBoard`).
 */

// The board and its clock.
export { createBoard } from '../store/board.js';
export { tapEvents } from '../store/board-events.js';
export type {
  Board,
  BoardActions,
  BoardCounters,
  BoardOptions,
  BoardSnapshot,
  BoardState,
  OpenSpec,
  PanelKind,
  PanelView,
  EventListener,
  StopHook,
} from '../store/board-types.js';
export type { AgentRow, BoardStatus } from '../store/status.js';
export { startBoardClock, type BoardClock } from './io/cockpit/board-clock.js';

// Events and states.
export type { AgentEvent, AgentEventType } from './core/events.js';
export { isLive, PANEL_STATES, type FinalState, type PanelState, type StopCause } from './core/panel/panel-state.js';
export type { Layout, PaneId, PanelPlace, Rect } from './core/panel/layout.js';
export type { Command, CommandOf } from './core/protocol/commands.js';
export { AgentsFullError, RequestError } from './core/errors.js';

// Agents.
export type { AgentResult, AgentService, SpawnResult } from './core/agents/agent-service.js';
export { LocalAgentService, type WorkerRequest } from './io/agents/agent-service.js';
export { startAgentService, type AgentServiceStartOptions, type StartedAgentService } from './io/embed/embedded-agents.js';
export type { EmitEvent, RunOutcome, Runner, RunningAgent, RunSpec } from './io/agents/runners/runner.js';
export { DEFAULT_RUNNERS } from './io/agents/runners/table.js';
export { workerRunner, type WorkerFn } from './io/agents/runners/worker.js';

// Views for a host Ink app.
export { createDashboard, type Dashboard, type DashboardOptions } from './io/embed/dashboard.js';
export type { PaneSource } from './core/panel/pane-source.js';
export { AgentColumnBox, type AgentColumnBoxProps } from '../components/AgentColumnBox.js';
export { AgentPanelBox, type AgentPanelBoxProps } from '../components/AgentPanelBox.js';

// The cockpit.
export { startCockpit } from './io/cockpit/cockpit.js';
export { createCockpitBoard, type CockpitBoard, type CockpitBoardOptions, type CockpitScreens } from './io/cockpit/cockpit-board.js';
export type { CockpitOptions, MentionSource, RunningCockpit } from './io/cockpit/cockpit-types.js';
export { runCockpit, type CockpitMainOptions } from './io/cockpit/cockpit-main.js';
export type { Reply } from '../store/dispatch.js';
