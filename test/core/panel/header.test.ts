import { describe, expect, it } from 'vitest';
import {
  formatElapsed,
  formatTokens,
  headerText,
  stateColor,
  type HeaderInfo,
} from '../../../src/core/panel/header.js';
import { PANEL_STATES } from '../../../src/core/panel/panel-state.js';
import { MPLEX_VPANE_HEADER_MAX, ORCH_LABEL_MAX } from '../../../src/core/policy.js';

const BASE: HeaderInfo = { label: 'agent #1', state: 'running', elapsedMs: 0, tools: 0, tokens: 0 };

describe('headerText', () => {
  it('matches the spec example for a fresh running agent', () => {
    expect(headerText(BASE)).toBe(' ● agent #1 · running · 0s');
  });

  it('adds tools and tokens only when there are some, with a singular tool', () => {
    expect(headerText({ ...BASE, elapsedMs: 4_000, tools: 1 })).toBe(' ● agent #1 · running · 4s · 1 tool');
    expect(headerText({ ...BASE, elapsedMs: 125_000, tools: 3, tokens: 1_500 })).toBe(
      ' ● agent #1 · running · 2m05s · 3 tools · 1.5k tok',
    );
    expect(headerText({ ...BASE, tokens: 950 })).toBe(' ● agent #1 · running · 0s · 950 tok');
  });

  it('shows the icon of every state', () => {
    const heads = PANEL_STATES.filter((s) => s !== 'waiting').map((state) => headerText({ ...BASE, state }));
    expect(heads).toEqual([
      ' … agent #1 · queued · 0s',
      ' ● agent #1 · running · 0s',
      ' ◌ agent #1 · idle · 0s',
      ' ? agent #1 · waiting for you · 0s',
      ' ✓ agent #1 · done · 0s',
      ' ✗ agent #1 · failed · 0s',
      ' ⏱ agent #1 · timeout · 0s',
      ' ⊘ agent #1 · cancelled · 0s',
    ]);
  });

  it('shows what a waiting agent waits for, the network by default', () => {
    expect(headerText({ ...BASE, state: 'waiting' })).toBe(' ⌁ agent #1 · waiting for network · 0s');
    expect(headerText({ ...BASE, state: 'waiting', waitingFor: 'rate limit' })).toBe(
      ' ⌁ agent #1 · waiting for rate limit · 0s',
    );
  });

  it('clips the label to ORCH_LABEL_MAX characters', () => {
    const head = headerText({ ...BASE, label: 'x'.repeat(100) });
    expect(head).toBe(` ● ${'x'.repeat(ORCH_LABEL_MAX - 1)}… · running · 0s`);
  });

  it('sanitizes the label so it cannot carry escape sequences or line breaks', () => {
    expect(headerText({ ...BASE, label: 'cap\x1b]0;t\x07 \x1b[31mtai\x1b[0m\nzen' })).toBe(
      ' ● cap tai zen · running · 0s',
    );
  });

  it('truncates the whole header to MPLEX_VPANE_HEADER_MAX characters', () => {
    const head = headerText({ ...BASE, state: 'waiting', waitingFor: 'y'.repeat(300) });
    expect([...head].length).toBe(MPLEX_VPANE_HEADER_MAX);
    expect(head.endsWith('y…')).toBe(true);
  });
});

describe('formatElapsed', () => {
  it('shows seconds under a minute, minutes and seconds under an hour, then hours and minutes', () => {
    expect([0, 999, 59_999, 60_000, 125_000, 3_599_000, 3_600_000, 3_725_000, 36_061_000, -5].map(formatElapsed)).toEqual([
      '0s',
      '0s',
      '59s',
      '1m00s',
      '2m05s',
      '59m59s',
      '1h00m',
      '1h02m',
      '10h01m',
      '0s',
    ]);
  });
});

describe('formatTokens', () => {
  it('abbreviates to k and M, cutting rather than rounding', () => {
    expect(
      [0, 950, 999, 1_000, 1_500, 1_999, 2_300, 9_999, 12_345, 999_999, 1_000_000, 1_250_000, 12_500_000].map(
        formatTokens,
      ),
    ).toEqual(['0', '950', '999', '1k', '1.5k', '1.9k', '2.3k', '9.9k', '12k', '999k', '1M', '1.2M', '12M']);
  });
});

describe('stateColor', () => {
  it('gives every state its header colour', () => {
    expect(Object.fromEntries(PANEL_STATES.map((s) => [s, stateColor(s)]))).toEqual({
      queued: 'grey',
      running: 'blue',
      asking: 'magenta',
      idle: 'orange',
      waiting: 'orange',
      done: 'green',
      failed: 'red',
      timeout: 'orange',
      cancelled: 'grey',
    });
  });
});
