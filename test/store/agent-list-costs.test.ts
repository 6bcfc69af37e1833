/** The agent list's costs: a sample is kept only when what it shows changed, so a figure at rest renders nothing. */
import { describe, expect, it } from 'vitest';
import { createAgentList, costText, type AgentCost } from '../../store/agent-list.js';

const MB = 1024 * 1024;

describe("the agent list's costs", () => {
  it('keeps an agents sample only when a row would read differently', () => {
    const list = createAgentList();
    let changes = 0;
    list.subscribe(() => changes++);
    list.getState().measured(new Map([[1, { cpu: 12.2, rssBytes: 100 * MB }]]), undefined);
    expect(changes).toBe(1);
    list.getState().measured(new Map([[1, { cpu: 11.8, rssBytes: 100.3 * MB }]]), undefined); // still "cpu 12% · 100 MB"
    expect(changes).toBe(1);
    list.getState().measured(new Map<number, AgentCost>([[1, { cpu: 30, rssBytes: 100 * MB }], [2, 'remote']]), undefined);
    expect(changes).toBe(2);
    expect(costText(list.getState().costs.get(2) ?? 'remote')).toBe('cpu - · -');
  });

  it("shows the cockpit's own RSS anew only when it moved by 5 %, and its CPU when its text changed", () => {
    const list = createAgentList();
    list.getState().measured(new Map(), { cpu: 0.2, rssBytes: 80 * MB });
    const shown = list.getState().own;
    list.getState().measured(new Map(), { cpu: 0.5, rssBytes: 83 * MB }); // <1% both, 3.75 % more memory
    expect(list.getState().own).toBe(shown);
    list.getState().measured(new Map(), { cpu: 0.5, rssBytes: 85 * MB });
    expect(list.getState().own?.rssBytes).toBe(85 * MB);
    list.getState().measured(new Map(), { cpu: 3, rssBytes: 85 * MB });
    expect(list.getState().own?.cpu).toBe(3);
  });
});
