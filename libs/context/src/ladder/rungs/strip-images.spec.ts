import type { ImageStripDecision } from '@arbor/domain/compaction';
import { baseInput, session, setup } from '../testing/builders';
import { imageLimitProblems, stripImages } from './strip-images';

const messages = session({
  turns: 1,
  steps: 6,
  resultWords: 5,
  image: { width: 800, height: 600 },
});

async function run(targetBelow: number, force: boolean, capabilities = {}) {
  const { ctx, state } = await setup(baseInput(messages, { capabilities }));
  ctx.target = state.tokens - targetBelow;
  const result = await stripImages(ctx, state, {
    force,
    trigger: force ? 'shake' : 'threshold',
  });
  const decision = result.added[0] as ImageStripDecision | undefined;
  return { ctx, state, result, decision, ids: decision?.images.map((i) => i.messageId) ?? [] };
}

// Tool results sit at m3, m5, m7, m9, m11, m13 (one image each).
describe('stripImages', () => {
  it('strips the oldest images until the request fits', async () => {
    const { ctx, result, ids, decision } = await run(1000, false);
    expect(ids).toEqual(['m3', 'm5']);
    expect(result.state.tokens).toBeLessThanOrEqual(ctx.target);
    expect(decision?.images[0]).toEqual({
      messageId: 'm3',
      path: 'content[0].content[1]',
      mediaType: 'image/png',
      bytes: expect.any(Number),
      width: 800,
      height: 600,
    });
    expect(decision?.trigger).toBe('threshold');
  });

  it('keeps the newest few images when stripping for room', async () => {
    const { ids } = await run(100_000, false, { keepImages: 2 });
    expect(ids).toEqual(['m3', 'm5', 'm7', 'm9']);
  });

  it('strips all but the newest few when forced, though the request fits', async () => {
    const { ids, result } = await run(-100_000, true);
    expect(ids).toEqual(['m3', 'm5', 'm7']);
    expect(result.receipt.trigger).toBe('shake');
  });

  it('strips for the provider image count even when the request fits', async () => {
    const { ctx, state } = await setup(
      baseInput(messages, { capabilities: { limits: { maxImages: 2 } } }),
    );
    expect(imageLimitProblems(ctx, state)).toEqual(['6 images > 2']);
    const result = await stripImages(ctx, state, { force: false, trigger: 'threshold' });
    const decision = result.added[0] as ImageStripDecision;
    expect(decision.images.map((i) => i.messageId)).toEqual(['m3', 'm5', 'm7', 'm9']);
    expect(decision.trigger).toBe('image_limits');
    expect(imageLimitProblems(ctx, result.state)).toEqual([]);
  });

  it('strips an image over the per-image byte limit, however recent', async () => {
    const { ids } = await run(-100_000, false, { limits: { maxImageBytes: 100 } });
    expect(ids).toEqual(['m3', 'm5', 'm7', 'm9', 'm11', 'm13']);
  });

  it('strips images too large a side once a request holds many images', async () => {
    const { ctx, state } = await setup(
      baseInput(messages, {
        capabilities: { limits: { manyImages: { threshold: 3, maxImageSide: 700 } } },
      }),
    );
    expect(imageLimitProblems(ctx, state)).toEqual(['an image over 700 px a side']);
    const result = await stripImages(ctx, state, { force: false, trigger: 'threshold' });
    expect((result.added[0] as ImageStripDecision).images).toHaveLength(3);
    expect(imageLimitProblems(ctx, result.state)).toEqual([]);
  });

  it('has nothing to do without images', async () => {
    const { ctx, state } = await setup(baseInput(session({ turns: 1, steps: 1, resultWords: 5 })));
    const result = await stripImages(ctx, state, { force: true, trigger: 'shake' });
    expect(result.receipt).toMatchObject({ applied: false, reason: 'no image to strip' });
  });
});
