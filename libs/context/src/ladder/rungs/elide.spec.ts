import type { ElisionDecision } from '@arbor/domain/compaction';
import type { Message } from '@arbor/domain/messages';
import { baseInput, session, setup } from '../testing/builders';
import type { StepOptions } from './common';
import { elide } from './elide';

const caps = { protectTokens: 3000, minElisionSavings: 1000 };
const auto: StepOptions = { force: false, trigger: 'threshold' };

async function run(
  messages: Message[],
  targetBelow: number,
  options = auto,
  capabilities: Record<string, number> = caps,
) {
  const { ctx, state } = await setup(baseInput(messages, { capabilities }));
  ctx.target = state.tokens - targetBelow;
  const result = await elide(ctx, state, options);
  const decision = result.added[0] as ElisionDecision | undefined;
  return { ctx, state, result, decision, ids: decision?.results.map((r) => r.toolUseId) ?? [] };
}

describe('elide', () => {
  const messages = session({ turns: 2, steps: 8, resultWords: 300 });

  it('elides the oldest tool results until the request fits', async () => {
    const { ctx, result, ids, decision } = await run(messages, 2500);
    expect(ids.slice(0, 3)).toEqual(['c1_1', 'c1_2', 'c1_3']);
    expect(result.state.tokens).toBeLessThanOrEqual(ctx.target);
    expect(decision?.tokensAfter).toBe(result.state.tokens);
    expect(decision?.tokensBefore).toBeGreaterThan(ctx.target);
    expect(result.receipt.applied).toBe(true);
    // Not more than needed: without the last one it would not have fitted (or saved enough).
    expect(ids.length).toBeLessThan(16);
  });

  it('saves at least the minimum when it acts, even if less would fit', async () => {
    const { ids } = await run(messages, 10, auto, { protectTokens: 3000, minElisionSavings: 3000 });
    expect(ids.length).toBeGreaterThanOrEqual(4); // ~700 tokens saved each
  });

  it('never touches the protected recent window, even when forced', async () => {
    const { ids, state } = await run(messages, 0, { force: true, trigger: 'shake' });
    expect(state.tokens).toBeGreaterThan(0);
    expect(ids).not.toContain('c2_8');
    expect(ids).not.toContain('c2_7');
    expect(ids).toContain('c2_2');
    expect(ids.length).toBeGreaterThan(10);
  });

  it('elides everything eligible when forced, though the request fits', async () => {
    const { ids, result } = await run(messages, -100_000, { force: true, trigger: 'shake' });
    expect(result.receipt.trigger).toBe('shake');
    expect(ids.length).toBeGreaterThan(10);
  });

  it('does nothing when it would save too little and still not fit', async () => {
    const { result } = await run(messages, 1_000_000, auto, {
      protectTokens: 3000,
      minElisionSavings: 100_000,
    });
    expect(result.added).toEqual([]);
    expect(result.receipt).toMatchObject({ applied: false, reason: expect.stringMatching(/only/) });
  });

  it('acts below the minimum saving when that makes the request fit', async () => {
    const { result } = await run(messages, 300, auto, {
      protectTokens: 3000,
      minElisionSavings: 100_000,
    });
    expect(result.receipt.applied).toBe(true);
  });

  it('never elides errors, pinned messages, or results smaller than their placeholder', async () => {
    const marked = messages.map((m): Message => {
      if (m.content[0]?.type !== 'tool_result') return m;
      const id = m.content[0].tool_use_id;
      if (id === 'c1_1') return { ...m, content: [{ ...m.content[0], is_error: true }] };
      if (id === 'c1_2') return { ...m, pinned: true };
      if (id === 'c1_3') return { ...m, content: [{ ...m.content[0], content: 'ok' }] };
      return m;
    });
    const { ids } = await run(marked, 0, { force: true, trigger: 'shake' });
    expect(ids).not.toContain('c1_1');
    expect(ids).not.toContain('c1_2');
    expect(ids).not.toContain('c1_3');
    expect(ids).toContain('c1_4');
  });

  it('does not elide again what is already elided', async () => {
    const first = await run(messages, 0, { force: true, trigger: 'shake' });
    const { ctx, state } = await setup(
      baseInput(messages, { capabilities: caps, decisions: first.result.added }),
    );
    const again = await elide(ctx, state, { force: true, trigger: 'shake' });
    expect(again.added).toEqual([]);
  });
});
