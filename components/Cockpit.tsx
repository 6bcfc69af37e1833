/**
 * The cockpit's root: main pane, separators and agent column at the layout's rectangles, a zoomed pane, the help or
 * the agent list, and the status line. It renders on the PaneSource's cue and reads the board's snapshot then, so a
 * streaming board never renders React faster than the terminal is drawn.
 */
import React, { useSyncExternalStore } from 'react';
import { Box } from 'ink';
import { useStore } from 'zustand';
import { paletteOf } from '../src/core/panel/colors.js';
import { rectOf } from '../src/core/panel/layout.js';
import type { Board } from '../store/board.js';
import { createAgentList, type AgentList as AgentListStore } from '../store/agent-list.js';
import { createPrefixSign, type PrefixSign } from '../store/prefix-sign.js';
import { AgentColumn } from './AgentColumn.js';
import { AgentList, type RowPlace } from './AgentList.js';
import { AgentPanel } from './AgentPanel.js';
import { HelpOverlay } from './HelpOverlay.js';
import { MainPane } from './MainPane.js';
import { MentionPrompt } from './MentionPrompt.js';
import type { MentionPrompt as MentionPromptStore } from '../store/mention-prompt.js';
import type { PaneSource } from '../src/core/panel/pane-source.js';
import { Separators } from './Separators.js';
import { RawRows } from './RawRows.js';
import { StatusLine, statusFacts } from './StatusLine.js';
import { PaletteContext } from './use-palette.js';

/** Props: the board, the screens, the prefix key (for the help) and the mention prompt's store. */
export interface CockpitProps {
  readonly board: Board;
  readonly source: PaneSource;
  readonly prefix: string;
  /** The `@name prompt` line, drawn over the bottom row while open. */
  readonly prompt?: MentionPromptStore;
  /** The agent list's store (prefix + w). */
  readonly list?: AgentListStore;
  /** The cockpit's name on the status line. */
  readonly name?: string;
  /** The time, for the status's elapsed times (given by the cockpit; components read no clock). */
  readonly now?: () => number;
  /** Whether the prefix waits for its key (the status line lights up). */
  readonly prefixSign?: PrefixSign;
  /**
   * The output stage draws the status row over the chrome (the cockpit's overlay mode, src/io/cockpit/drawing/frames.ts):
   * React leaves it blank and never renders for the cost figure or the prefix sign, which change it alone.
   */
  readonly statusDrawn?: boolean;
}

const CLOSED_LIST = createAgentList();
const NO_SIGN = createPrefixSign();
const NO_ROWS = (): (() => void) => () => {};

/** The whole window. */
export function Cockpit({ board, source, prefix, prompt, list = CLOSED_LIST, name = 'tai', now = () => 0, prefixSign = NO_SIGN, statusDrawn = false }: CockpitProps): React.JSX.Element {
  useSyncExternalStore(source.subscribe, source.version);
  const listOpen = useStore(list, (l) => l.open);
  useStore(board, (b) => b.live);
  useStore(board, (b) => b.helpTop); // the help scrolled: no pane changed // an agent off the screen ended: no pane changed, but the status line's counts did
  // Drawn by the output stage, the status row's own stores are not React's to follow (a render costs a whole frame).
  useStore(statusDrawn ? NO_SIGN : prefixSign);
  useStore(statusDrawn ? CLOSED_LIST : list, (l) => l.own);
  // The open agent list follows its rows, which change without a panel changing (a lane's tag, an agent off the board).
  const actions = board.getState();
  useSyncExternalStore(listOpen ? actions.onRowsMoved : NO_ROWS, () => (listOpen ? actions.rowsVersion() : 0));
  const s = board.getState();
  const { layout, focus, scrollback } = s;
  const area = layout.status ? s.rows - 1 : s.rows;
  // The rows only for the agent list; the status line needs the counts alone, and none when the output stage draws it.
  const status = listOpen ? board.getState().status(now()) : undefined;
  let body: React.ReactNode;
  if (s.help) {
    body = <HelpOverlay cols={s.cols} rows={area} prefix={prefix} top={s.helpTop} />;
  } else if (listOpen && status) {
    const places = new Map<number, RowPlace>(
      status.agents.map((a) => {
        const view = s.panels.find((p) => p.id === a.id);
        const place: RowPlace = view ? (view.shown ? 'shown' : 'hidden') : s.transcriptKept(a.id) ? 'kept' : 'gone';
        return [a.id, place];
      }),
    );
    body = <AgentList list={list} rows={status.agents} places={places} cols={s.cols} height={area} />;
  } else if (layout.zoomed) {
    const { id, rect } = layout.zoomed;
    const view = id === 'main' ? undefined : s.panels.find((p) => p.id === id);
    body =
      id === 'main' || !view ? (
        <MainPane rect={rect} scrollback={scrollback} source={source} version={source.paneVersion('main')} />
      ) : (
        <AgentPanel view={view} rect={rect} focused scrollback={scrollback} source={source} version={source.paneVersion(id)} />
      );
  } else {
    const main = rectOf(layout, 'main') ?? layout.main;
    body = (
      <>
        <MainPane rect={main} scrollback={focus === 'main' ? scrollback : 0} source={source} version={source.paneVersion('main')} />
        <Separators lines={layout.separators} mainFocused={focus === 'main'} />
        <AgentColumn places={layout.panels} panels={s.panels} focus={focus} scrollback={scrollback} source={source} hidden={layout.hidden.length} />
      </>
    );
  }
  const statusRect = layout.status;
  return (
    <PaletteContext.Provider value={paletteOf(s.noColor)}>
      <Box width={s.cols} height={s.rows} flexDirection="column">
        {body}
        {statusRect ? (
          <Box position="absolute" marginLeft={0} marginTop={statusRect.y} width={statusRect.cols} height={1}>
            {statusDrawn ? <RawRows rows={[]} cols={statusRect.cols} height={1} /> : <StatusLine facts={statusFacts({ state: s, list, sign: prefixSign, name, prefix, counts: s.agentCounts() })} cols={statusRect.cols} />}
          </Box>
        ) : null}
        {prompt ? <MentionPrompt prompt={prompt} cols={s.cols} y={s.rows - 1} /> : null}
      </Box>
    </PaletteContext.Provider>
  );
}
