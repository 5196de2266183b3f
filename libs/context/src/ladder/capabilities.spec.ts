import { modelHasVision, resolveCapabilities, SNAPSHOT_SHAPES } from './capabilities';

describe('capabilities', () => {
  it.each([
    ['claude-sonnet-4-5', true],
    ['claude-2.1', false],
    ['gpt-4o-mini', true],
    ['gpt-4', false],
    ['gpt-4-turbo', true],
    ['gpt-3.5-turbo', false],
    ['o3-mini', false],
    ['o3', true],
    ['gemini-2.5-pro', true],
    ['models/gemini-3-pro-preview', true],
    ['llama-3', false],
  ])('%s reads images: %s', (model, vision) => {
    expect(modelHasVision(model)).toBe(vision);
  });

  it('picks a page shape by billing scheme', () => {
    expect(resolveCapabilities('anthropic', 'claude-opus-4').snapshotShape).toBe(
      SNAPSHOT_SHAPES.claude,
    );
    expect(resolveCapabilities('openai-chat', 'gpt-4o').snapshotShape?.name).toBe('openai-tile');
    expect(resolveCapabilities('openai-responses', 'gpt-5-mini').snapshotShape?.name).toBe(
      'openai-patch',
    );
    expect(resolveCapabilities('gemini', 'gemini-3-pro').snapshotShape?.name).toBe('gemini');
    expect(resolveCapabilities('gemini', 'gemini-2.5-flash').snapshotShape?.name).toBe('gemini');
  });

  it('has no page shape without vision', () => {
    expect(resolveCapabilities('openai-chat', 'gpt-3.5-turbo').snapshotShape).toBeNull();
  });

  it('takes per-model overrides over the table', () => {
    const caps = resolveCapabilities('openai-chat', 'my-finetune', {
      vision: true,
      keepImages: 1,
      limits: { maxImages: 5 },
    });
    expect(caps.vision).toBe(true);
    expect(caps.snapshotShape?.name).toBe('openai-tile');
    expect(caps.keepImages).toBe(1);
    expect(caps.limits).toEqual({ maxImages: 5 });
    expect(caps.protectTokens).toBe(16_000);
  });
});
