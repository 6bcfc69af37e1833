/**
 * The folder `src/core/decoders/`: each agent protocol's output turned into events, pure, with each protocol's
 * failures and the one bounded line splitter. This file: the frame the JSON-lines protocols share (docs/agents.md,
 * "JSON-lines framing, shared"): bounded lines, one message each; a line that is not JSON is a Note (agents print
 * warnings), an over-long one an Error.
 */
import type { AgentEvent } from '../events.js';
import type { AgentFailure } from '../outage/classify.js';
import { AGENT_LINE_MAX, LineDecoder, type Line } from './lines.js';

/** What a decoder made of some input: events for the panel, text for the result. */
export interface Decoded {
  readonly events: AgentEvent[];
  readonly text: string;
}

/** How a turn ended, by the agent's own account. */
export interface TurnEnd {
  readonly state: 'done' | 'failed';
  readonly summary: string;
  /** The agent's own final answer, when it sends one (else the streamed text is the result). */
  readonly text?: string;
}

/** Maps one parsed message of a protocol. */
export interface MessageDecoder {
  message(msg: unknown): Decoded;
  /** Set once the agent reported the end of its turn. */
  readonly end: TurnEnd | undefined;
  /** The failures the agent reported, read in the protocol's own terms: the last FAILURES_KEEP, oldest first. */
  readonly failures: readonly AgentFailure[];
}

/** A decoder keeps this many of the failures an agent reported (the last ones decide). */
export const FAILURES_KEEP = 4;

/** Keeps `failure`, if there is one, among the last FAILURES_KEEP in `kept`. */
export function keepFailure(kept: AgentFailure[], failure: AgentFailure | undefined): void {
  if (failure === undefined) return;
  kept.push(failure);
  if (kept.length > FAILURES_KEEP) kept.shift();
}

/** Non-JSON lines are shown clipped to this many characters. */
const NOTE_LINE_MAX = 300;

/** Frames a byte stream into messages for a MessageDecoder. */
export class JsonLines {
  readonly #lines: LineDecoder;

  constructor(readonly decoder: MessageDecoder, max: number = AGENT_LINE_MAX) {
    this.#lines = new LineDecoder(max);
  }

  /** Decodes a chunk of the agent's stdout. */
  push(chunk: string | Uint8Array): Decoded {
    return this.#map(this.#lines.push(chunk));
  }

  /** Decodes what is left at the end of the stream. */
  end(): Decoded {
    return this.#map(this.#lines.end());
  }

  #map(lines: readonly Line[]): Decoded {
    const events: AgentEvent[] = [];
    let text = '';
    for (const piece of lines) {
      if (!piece.ok) {
        events.push({ type: 'error', text: `skipped a message over the ${piece.max}-byte limit` });
        continue;
      }
      const line = piece.text;
      if (line.trim() === '') continue;
      let msg: unknown;
      try {
        msg = JSON.parse(line);
      } catch {
        events.push({ type: 'note', text: line.length > NOTE_LINE_MAX ? `${line.slice(0, NOTE_LINE_MAX)}…` : line });
        continue;
      }
      const d = this.decoder.message(msg);
      events.push(...d.events);
      text += d.text;
    }
    return { events, text };
  }
}
