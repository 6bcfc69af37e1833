import { describe, expect, it } from 'vitest';
import { parseLeftRight, parseMergeTree, parsePorcelainZ, parseShortstat, parseWorktreeList } from '../../../src/core/lanes/git-output.js';
import { diffStatText, laneAge, laneNextSteps, laneTag } from '../../../src/core/lanes/lane-lines.js';

describe('git output about a lane', () => {
  it('reads every shape of --shortstat', () => {
    expect(parseShortstat(' 3 files changed, 10 insertions(+), 2 deletions(-)\n')).toEqual({ files: 3, added: 10, removed: 2 });
    expect(parseShortstat(' 1 file changed, 1 insertion(+)\n')).toEqual({ files: 1, added: 1, removed: 0 });
    expect(parseShortstat(' 1 file changed, 4 deletions(-)\n')).toEqual({ files: 1, added: 0, removed: 4 });
    expect(parseShortstat('')).toEqual({ files: 0, added: 0, removed: 0 });
  });

  it('reads left-right counts as behind then ahead', () => {
    expect(parseLeftRight('2\t5\n')).toEqual({ behind: 2, ahead: 5 });
  });

  it('reads porcelain -z paths, both sides of a rename', () => {
    expect(parsePorcelainZ(' M a.txt\0R  new.txt\0old.txt\0?? n.txt\0')).toEqual(['a.txt', 'new.txt', 'old.txt', 'n.txt']);
  });

  it('reads merge-tree: a clean tree, or the conflicted files', () => {
    expect(parseMergeTree('abc123\n', 0)).toEqual({ kind: 'clean', tree: 'abc123' });
    expect(parseMergeTree('abc123\nREADME.md\nsrc/x.ts\nREADME.md\n', 1)).toEqual({ kind: 'conflict', files: ['README.md', 'src/x.ts'] });
  });

  it('reads worktree list --porcelain with the branch each holds', () => {
    const out = 'worktree /r\nHEAD abc\nbranch refs/heads/main\n\nworktree /r/.git/tai-lanes/x\nHEAD def\ndetached\n\n';
    expect(parseWorktreeList(out)).toEqual([{ path: '/r', branch: 'refs/heads/main' }, { path: '/r/.git/tai-lanes/x', branch: null }]);
  });

  it('says a lane in a header, its next steps and its age', () => {
    expect(laneTag('fix')).toBe('⎇ fix');
    expect(laneTag('fix', { files: 3, added: 10, removed: 2 })).toBe('⎇ fix · 3 files +10 −2');
    expect(diffStatText({ files: 1, added: 1, removed: 0 })).toBe('1 file +1 −0');
    expect(diffStatText({ files: 0, added: 0, removed: 0 })).toBe('no changes');
    expect(laneNextSteps('fix')).toBe('review: tai lane diff fix · merge: tai lane merge fix · drop: tai lane drop fix');
    expect([laneAge(5_000), laneAge(120_000), laneAge(7_200_000), laneAge(200_000_000)]).toEqual(['5s', '2m', '2h', '2d']);
  });
});
