import type { SnapshotDecision } from '@arbor/domain/compaction';
import { SNAPSHOT_SHAPES } from '../capabilities';
import { sha256 } from '../measure';
import { SNAPSHOT_TEXT_FORMAT, serializeMessages, serializeMessagesLegacy } from '../serialize';
import { buildState } from '../state';
import { fakeRenderer } from '../testing/fake-pages';
import { baseInput, session, setup } from '../testing/builders';
import { createLru } from '../token-cache';
import type { StepOptions } from './common';
import { snapshot } from './snapshot';

const messages = session({
  turns: 6,
  steps: 3,
  resultWords: 400,
  image: { width: 64, height: 48 },
});
const auto: StepOptions = { force: false, trigger: 'threshold' };

async function run(targetShare: number, options = auto, over = {}) {
  const renderer = fakeRenderer();
  const { ctx, state } = await setup(
    baseInput(messages, {
      renderPages: renderer.render,
      capabilities: { protectTokens: 4000 },
      ...over,
    }),
  );
  ctx.target = Math.floor(state.tokens * targetShare);
  const result = await snapshot(ctx, state, options);
  return { ctx, state, result, renderer, decisions: result.added as SnapshotDecision[] };
}

const index = (id: string) => messages.findIndex((m) => m.id === id);

describe('snapshot', () => {
  it('images the middle, keeping the head and the tail verbatim', async () => {
    const { ctx, result, decisions } = await run(0.6);
    expect(decisions).toHaveLength(1);
    const d = decisions[0];
    expect(d.fromId).toBe('m2'); // right after the task
    const next = messages[index(d.toId) + 1];
    expect(next.role).toBe('user'); // the tail opens at a prompt, not a tool result
    expect(next.content[0].type).toBe('text');
    expect(result.state.tokens).toBeLessThanOrEqual(ctx.target);
    const items = result.state.items;
    expect(items[0].message).toBe(messages[0]);
    expect(items[1].kind).toBe('snapshot');
    expect(items[2].kind).toBe('ack');
    expect(items.slice(3).map((i) => i.message)).toEqual(messages.slice(index(d.toId) + 1));
    expect(d.coveredIds).toEqual(messages.slice(1, index(d.toId) + 1).map((m) => m.id));
  });

  it('takes the smallest middle that fits', async () => {
    const loose = await run(0.8);
    const tight = await run(0.4);
    expect(loose.decisions[0].coveredIds.length).toBeLessThan(tight.decisions[0].coveredIds.length);
  });

  it('renders the pages from the serialized source text and records its hash', async () => {
    const { decisions, renderer } = await run(0.6);
    const d = decisions[0];
    const covered = messages.slice(index(d.fromId), index(d.toId) + 1);
    const text = serializeMessages(covered);
    expect(renderer.calls).toEqual([{ text, shape: 'claude-dense' }]);
    expect(text).not.toContain('iVBOR'); // image bytes are not text to render
    expect(d).toMatchObject({
      shape: 'claude-dense',
      sourceChars: text.length,
      sourceHash: sha256(text),
      pageCount: Math.ceil(text.length / SNAPSHOT_SHAPES['claude-dense'].charsPerPage),
      trigger: 'threshold',
    });
  });

  it('renders the same pages again from the source on the next call', async () => {
    const first = await run(0.6);
    const again = fakeRenderer();
    const { state } = await setup(
      baseInput(messages, { renderPages: again.render, decisions: first.decisions }),
    );
    expect(again.calls).toEqual(first.renderer.calls);
    const pages = (s: typeof state) =>
      s.items.filter((i) => i.kind === 'snapshot').map((i) => JSON.stringify(i.message.content));
    expect(pages(state)).toEqual(pages(first.result.state));
  });

  it('records the text format, and renders a decision from before it with the first serializer', async () => {
    const first = await run(0.6);
    expect(first.decisions[0].textFormat).toBe(SNAPSHOT_TEXT_FORMAT);
    const { textFormat: _dropped, ...rest } = first.decisions[0];
    const covered = messages.slice(index(rest.fromId), index(rest.toId) + 1);
    const legacyText = serializeMessagesLegacy(covered);
    expect(legacyText).not.toBe(serializeMessages(covered));
    const legacy: SnapshotDecision = { ...rest, sourceHash: sha256(legacyText) };
    const again = fakeRenderer();
    const { state } = await setup(
      baseInput(messages, { renderPages: again.render, decisions: [legacy] }),
    );
    expect(again.calls).toEqual([{ text: legacyText, shape: 'claude-dense' }]);
    expect(state.items.some((i) => i.kind === 'snapshot')).toBe(true);
  });

  it('never renders pages from text that no longer matches the recorded hash', async () => {
    const first = await run(0.6);
    const tampered: SnapshotDecision = { ...first.decisions[0], sourceHash: sha256('other') };
    const again = fakeRenderer();
    const { state } = await setup(
      baseInput(messages, { renderPages: again.render, decisions: [tampered] }),
    );
    expect(again.calls).toEqual([]);
    // The covered messages are sent as themselves instead.
    expect(state.items.some((i) => i.kind === 'snapshot')).toBe(false);
    expect(state.items.map((i) => i.message)).toEqual(messages);
  });

  it('reuses pages from a page cache instead of rendering again', async () => {
    const cache = createLru<readonly Buffer[]>(10);
    const first = await run(0.6, auto, { pageCache: cache });
    const again = fakeRenderer();
    const { ctx } = await setup(
      baseInput(messages, {
        renderPages: again.render,
        decisions: first.decisions,
        pageCache: cache,
      }),
    );
    await buildState(ctx, first.decisions);
    expect(again.calls).toEqual([]);
  });

  it('keeps only the protected window as tail when forced', async () => {
    const { decisions, result } = await run(2, { force: true, trigger: 'snapshot' });
    expect(decisions).toHaveLength(1);
    expect(result.receipt.trigger).toBe('snapshot');
    // 4000 protected tokens hold less than one turn (~2,500 tokens of results a turn ... 3 steps):
    const tail = messages.slice(index(decisions[0].toId) + 1);
    expect(tail.length).toBeLessThan(9);
  });

  it('is skipped, saying why, for a model that does not read images', async () => {
    const { result } = await run(0.6, auto, { capabilities: { vision: false } });
    expect(result.receipt).toMatchObject({
      applied: false,
      reason: 'claude-sonnet-4-5 does not accept images',
    });
  });

  it('is skipped without a page renderer', async () => {
    const { result } = await run(0.6, auto, { renderPages: undefined });
    expect(result.receipt.reason).toBe('no page renderer configured');
  });

  it('does nothing when no middle can make it fit', async () => {
    const { result } = await run(0.01);
    expect(result.added).toEqual([]);
    expect(result.receipt.reason).toMatch(/makes it fit/);
  });

  it('reports a renderer failure instead of applying', async () => {
    const { result } = await run(0.6, auto, {
      renderPages: async () => {
        throw new Error('canvas unavailable');
      },
    });
    expect(result.receipt).toMatchObject({
      applied: false,
      reason: 'rendering failed: canvas unavailable',
    });
  });

  it('respects the page cap', async () => {
    const pagesOf = (added: unknown[]) =>
      (added as SnapshotDecision[]).reduce((n, d) => n + d.pageCount, 0);
    const free = await run(0.4);
    expect(pagesOf(free.result.added)).toBeGreaterThan(1);
    const capped = await run(0.4, auto, {
      capabilities: { protectTokens: 4000, maxSnapshotPages: 1 },
    });
    expect(pagesOf(capped.result.added)).toBeLessThanOrEqual(1);
  });
});
