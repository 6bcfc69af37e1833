/**
 * The cockpit's root: the main pane, the separators and the agent column at
 * the layout's rectangles, one zoomed pane, or the help overlay. It renders
 * on the PaneSource's cue (coalesced, at most ~30 times a second) and reads
 * the board's snapshot then, so a streaming board never renders React faster
 * than the terminal is drawn.
 */
import React, { useSyncExternalStore } from 'react';
import { Box } from 'ink';
import { rectOf } from '../src/core/panel/layout.js';
import type { Board } from '../store/board.js';
import { AgentColumn } from './AgentColumn.js';
import { AgentPanel } from './AgentPanel.js';
import { HelpOverlay } from './HelpOverlay.js';
import { MainPane } from './MainPane.js';
import { MentionPrompt } from './MentionPrompt.js';
import type { MentionPrompt as MentionPromptStore } from '../store/mention-prompt.js';
import type { PaneSource } from '../src/core/panel/pane-source.js';
import { Separators } from './Separators.js';

/** Props: the board, the screens, the prefix key (for the help) and the mention prompt's store. */
export interface CockpitProps {
  readonly board: Board;
  readonly source: PaneSource;
  readonly prefix: string;
  /** The `@name prompt` line, drawn over the bottom row while open. */
  readonly prompt?: MentionPromptStore;
}

/** The whole window. */
export function Cockpit({ board, source, prefix, prompt }: CockpitProps): React.JSX.Element {
  useSyncExternalStore(source.subscribe, source.version);
  const s = board.getState();
  const { layout, focus, scrollback } = s;
  let body: React.ReactNode;
  if (s.help) {
    body = <HelpOverlay cols={s.cols} rows={s.rows} prefix={prefix} />;
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
  return (
    <Box width={s.cols} height={s.rows} flexDirection="column">
      {body}
      {prompt ? <MentionPrompt prompt={prompt} cols={s.cols} y={s.rows - 1} /> : null}
    </Box>
  );
}
