import { budgetStart, checkpointsDroppedBy, computeResumeCut, type CutNode } from './resume-cut';

/** Compact notation: U user prompt, A answer, C assistant calling a tool, R user tool result. */
const path = (spec: string, tokens: number[] = []): CutNode[] =>
  Array.from(spec).map((k, i) => ({
    id: `${k}${i}`,
    role: k === 'U' || k === 'R' ? 'user' : k === 'S' ? 'system' : 'assistant',
    tokens: tokens[i] ?? 10,
    toolUseIds: k === 'C' ? [`t${i}`] : [],
    toolResultIds: k === 'R' ? [`t${i - 1}`] : [],
  }));

describe('budgetStart', () => {
  it('takes the tighter of the two limits', () => {
    const p = path('UAUAUA', [5, 5, 5, 5, 5, 5]);
    expect(budgetStart(p, { keepMessages: 4 })).toBe(2);
    expect(budgetStart(p, { keepTokens: 10 })).toBe(4);
    expect(budgetStart(p, { keepMessages: 4, keepTokens: 10 })).toBe(4);
    expect(budgetStart(p, { keepMessages: 1, keepTokens: 100 })).toBe(5);
    expect(budgetStart(p, { keepMessages: 100 })).toBe(0);
    expect(budgetStart(p, { keepTokens: 4 })).toBe(6);
  });
});

describe('computeResumeCut', () => {
  it('starts exactly at a turn start when the limit lands on one', () => {
    const cut = computeResumeCut(path('UAUA'), { keepMessages: 2 });
    expect(cut).toMatchObject({
      startIndex: 2,
      cutAt: 'U2',
      keptIds: ['U2', 'A3'],
      keptWholeLastTurn: false,
    });
  });

  it('moves back over an orphan tool result and a split tool pair, to the turn start', () => {
    // U0 A1 | U2 C3 R4 C5 R6 A7: any start inside the tool loop moves back to U2.
    const p = path('UAUCRCRA');
    for (const keep of [1, 2, 3, 4, 5, 6]) {
      expect(computeResumeCut(p, { keepMessages: keep })?.cutAt).toBe('U2');
    }
    expect(computeResumeCut(p, { keepMessages: 7 })?.cutAt).toBe('U0');
  });

  it('says when nothing fit and the whole last turn was kept', () => {
    const p = path('UAUCRA', [1, 1, 1, 50, 50, 50]);
    const cut = computeResumeCut(p, { keepTokens: 60 });
    expect(cut).toMatchObject({
      cutAt: 'U2',
      keptWholeLastTurn: true,
      keptTokens: 151,
      budgetStart: 5,
    });
    const none = computeResumeCut(p, { keepTokens: 1 });
    expect(none).toMatchObject({ cutAt: 'U2', keptWholeLastTurn: true, budgetStart: 6 });
    const fits = computeResumeCut(p, { keepTokens: 151 });
    expect(fits).toMatchObject({ cutAt: 'U2', keptWholeLastTurn: false });
  });

  it('keeps a leading system message only when the cut reaches the root', () => {
    const p = path('SUAUA');
    expect(computeResumeCut(p, { keepMessages: 2 })?.cutAt).toBe('U3');
    expect(computeResumeCut(p, { keepMessages: 4 })?.cutAt).toBe('U1');
    expect(computeResumeCut(p, { keepMessages: 5 })?.cutAt).toBe('S0');
  });

  it('has no cut for an empty path', () => {
    expect(computeResumeCut([], { keepMessages: 3 })).toBeNull();
  });
});

describe('checkpointsDroppedBy', () => {
  it('drops live checkpoints outside the window, sorted by label', () => {
    const dropped = checkpointsDroppedBy(
      [
        { label: 'z', messageId: 'a', status: 'active' },
        { label: 'b', messageId: 'a', status: 'rewound' },
        { label: 'in', messageId: 'k', status: 'active' },
        { label: 'gone', messageId: 'a', status: 'dropped', reason: 'trimmed_by_resume' },
      ],
      new Set(['k']),
    );
    expect(dropped.map((c) => c.label)).toEqual(['b', 'z']);
  });
});
