/**
 * Foveated snapshots: when no middle on the legible default page fits, each segment's oldest
 * stretch goes on the denser shape and about FOVEA_PAGES legible pages stay next to what is sent
 * verbatim on either side.
 */
import type { SnapshotDecision } from '@arbor/domain/compaction';
import { checkBody } from '../../validity';
import { assembleContext } from '../assemble';
import { DENSER_SHAPE, SNAPSHOT_SHAPES } from '../capabilities';
import { fakeRenderer } from '../testing/fake-pages';
import { baseInput, counterIds, session, setup } from '../testing/builders';
import { snapshot } from './snapshot';

// Long answers, no tool results: elision cannot help, only the range rungs can.
const messages = session({ turns: 60, steps: 0, resultWords: 0, answerWords: 1500 });
const auto = { force: false, trigger: 'threshold' as const };

async function run(targetShare: number, maxSnapshotPages: number) {
  const { ctx, state } = await setup(
    baseInput(messages, {
      renderPages: fakeRenderer().render,
      capabilities: { protectTokens: 4000, maxSnapshotPages },
    }),
  );
  ctx.target = Math.floor(state.tokens * targetShare);
  const result = await snapshot(ctx, state, auto);
  return { ctx, state, result, decisions: result.added as SnapshotDecision[] };
}

describe('foveated snapshot', () => {
  it('pairs every default shape with a denser one of the same page size', () => {
    for (const [legible, dense] of Object.entries(DENSER_SHAPE)) {
      const a = SNAPSHOT_SHAPES[legible];
      const b = SNAPSHOT_SHAPES[dense];
      expect([b.width, b.height]).toEqual([a.width, a.height]);
      expect(b.charsPerPage).toBeGreaterThan(a.charsPerPage);
    }
  });

  it('keeps the legible shape while it fits, and foveates only when it does not', async () => {
    const roomy = await run(0.2, 1000);
    expect(roomy.result.receipt.applied).toBe(true);
    expect(new Set(roomy.decisions.map((d) => d.shape))).toEqual(new Set(['claude-dense']));

    // Page cap: two pages fewer than the legible middle needs.
    const legiblePages = roomy.decisions.reduce((n, d) => n + d.pageCount, 0);
    const tight = await run(0.2, legiblePages - 2);
    expect(tight.result.receipt.applied).toBe(true);
    expect(tight.result.state.tokens).toBeLessThanOrEqual(tight.ctx.target);
    const shapes = tight.decisions.map((d) => d.shape);
    expect(shapes).toEqual(['claude-dense', 'claude-fine', 'claude-dense']);
    expect(tight.result.receipt.reason).toMatch(/\(foveated\)$/);
    expect(tight.result.receipt.details).toMatchObject({ denseShape: 'claude-fine' });
    // Contiguous, in order: head side, the oldest stretch dense, tail side.
    const ids = tight.decisions.flatMap((d) => d.coveredIds);
    const first = messages.findIndex((m) => m.id === ids[0]);
    expect(ids).toEqual(messages.slice(first, first + ids.length).map((m) => m.id));
    expect(tight.decisions[1].coveredIds.length).toBeGreaterThan(
      tight.decisions[0].coveredIds.length,
    );
    // The legible ends are about FOVEA_PAGES pages each.
    for (const end of [tight.decisions[0], tight.decisions[2]]) {
      expect(end.pageCount).toBeGreaterThanOrEqual(2);
      expect(end.pageCount).toBeLessThanOrEqual(4);
    }
  });

  it('assembles into a valid body that the decisions reproduce byte for byte', async () => {
    const roomy = await run(0.2, 1000);
    const legiblePages = roomy.decisions.reduce((n, d) => n + d.pageCount, 0);
    const input = baseInput(messages, {
      budgetTokens: roomy.ctx.target + 4096,
      renderPages: fakeRenderer().render,
      capabilities: { protectTokens: 4000, maxSnapshotPages: legiblePages - 2 },
      allowDrop: false,
    });
    const r = await assembleContext(input);
    expect(checkBody('anthropic', r.body as never, { model: input.model })).toEqual([]);
    const shapes = r.newDecisions.flatMap((d) => (d.rung === 'snapshot' ? [d.shape] : []));
    expect(shapes).toContain('claude-fine');
    const again = await assembleContext({
      ...input,
      decisions: r.newDecisions,
      renderPages: fakeRenderer().render,
      newId: counterIds('x'),
    });
    expect(again.newDecisions).toEqual([]);
    expect(JSON.stringify(again.body)).toBe(JSON.stringify(r.body));
  });
});
