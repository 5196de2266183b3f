import {
  layerCapabilities,
  matchCapabilityRule,
  mergeCapabilityOverrides,
  modelHasVision,
  recordCapabilities,
  resolveCapabilities,
  SNAPSHOT_SHAPES,
  toModelCapabilities,
  UnknownSnapshotShapeError,
} from './capabilities';

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
      SNAPSHOT_SHAPES['claude-dense'],
    );
    expect(resolveCapabilities('openai-chat', 'gpt-4o').snapshotShape?.name).toBe(
      'openai-tile-large',
    );
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
    expect(caps.snapshotShape?.name).toBe('openai-tile-large');
    expect(caps.keepImages).toBe(1);
    expect(caps.limits).toEqual({ maxImages: 5 });
    expect(caps.protectTokens).toBe(16_000);
  });
});

describe('capability overrides (tenant table, request)', () => {
  const table = {
    'claude-': { protectTokens: 8_000 },
    'claude-3-haiku': { snapshotShape: 'claude-conservative' },
    'claude-3-haiku-2024': { keepImages: 1 },
    'my-vision-model': { vision: true, snapshotShape: 'openai-tile' },
  };

  it('picks the longest matching prefix only, on the bare lowercase name', () => {
    expect(matchCapabilityRule(table, 'claude-3-haiku-20240307')?.prefix).toBe(
      'claude-3-haiku-2024',
    );
    expect(matchCapabilityRule(table, 'Claude-3-Haiku-latest')?.prefix).toBe('claude-3-haiku');
    expect(matchCapabilityRule(table, 'claude-sonnet-4-5')?.prefix).toBe('claude-');
    expect(matchCapabilityRule(table, 'models/my-vision-model-2')?.prefix).toBe('my-vision-model');
    expect(matchCapabilityRule(table, 'gpt-4o')).toBeNull();
    expect(matchCapabilityRule({}, 'claude-3-haiku')).toBeNull();
  });

  it('merges field by field, later layers winning, absent fields never hiding earlier ones', () => {
    expect(
      mergeCapabilityOverrides(
        { vision: true, snapshotShape: 'claude-conservative', keepImages: 2 },
        { snapshotShape: 'claude', keepImages: undefined },
        null,
        { vision: false },
      ),
    ).toEqual({ vision: false, snapshotShape: 'claude', keepImages: 2 });
    // An explicit null shape is a value (no snapshots), not an absence.
    expect(mergeCapabilityOverrides({ snapshotShape: 'claude' }, { snapshotShape: null })).toEqual({
      snapshotShape: null,
    });
    expect(mergeCapabilityOverrides()).toEqual({});
  });

  it('turns shape names into planning shapes and refuses a shape it does not know', () => {
    expect(toModelCapabilities({ snapshotShape: 'claude-conservative' }).snapshotShape).toBe(
      SNAPSHOT_SHAPES['claude-conservative'],
    );
    expect(toModelCapabilities({ snapshotShape: null })).toEqual({ snapshotShape: null });
    expect(toModelCapabilities({})).toEqual({});
    expect(() => toModelCapabilities({ snapshotShape: 'claude-huge' })).toThrow(
      UnknownSnapshotShapeError,
    );
    // An inherited property name is not a shape.
    expect(() => toModelCapabilities({ snapshotShape: 'toString' })).toThrow(
      UnknownSnapshotShapeError,
    );
  });

  it('layers default table → tenant rule → request, and records the result by name', () => {
    const tenantOnly = layerCapabilities('anthropic', 'claude-3-haiku-latest', table);
    expect(tenantOnly.rule).toBe('claude-3-haiku');
    expect(tenantOnly.record).toEqual({
      vision: true,
      snapshotShape: 'claude-conservative',
      // The shorter 'claude-' rule does not add its protectTokens: one rule applies.
      protectTokens: 16_000,
      minElisionSavings: 4_000,
      keepImages: 3,
      maxSnapshotPages: 100,
    });
    const requested = layerCapabilities('anthropic', 'claude-3-haiku-latest', table, {
      snapshotShape: 'claude',
      maxSnapshotPages: 5,
    });
    expect(requested.capabilities.snapshotShape).toBe(SNAPSHOT_SHAPES.claude);
    expect(requested.record.maxSnapshotPages).toBe(5);
    // Vision switched on for a model the default table says is blind, with a shape of its own.
    const custom = layerCapabilities('openai-chat', 'my-vision-model-7b', table);
    expect(modelHasVision('my-vision-model-7b')).toBe(false);
    expect(custom.record).toMatchObject({ vision: true, snapshotShape: 'openai-tile' });
    // Vision off by request: the default shape is not filled in for a blind model.
    expect(
      layerCapabilities('anthropic', 'claude-opus-4', {}, { vision: false }).record,
    ).toMatchObject({
      vision: false,
      snapshotShape: null,
    });
    // No table, no request: exactly the default table.
    expect(layerCapabilities('gemini', 'gemini-2.5-pro').capabilities).toEqual(
      resolveCapabilities('gemini', 'gemini-2.5-pro'),
    );
  });

  it('a recorded set resolves back to the same capabilities', () => {
    for (const [provider, model, request] of [
      ['anthropic', 'claude-3-haiku-2024', { keepImages: 0 }],
      ['openai-chat', 'gpt-3.5-turbo', {}],
      ['openai-responses', 'gpt-5-mini', { vision: false }],
      ['gemini', 'gemini-3-pro', { snapshotShape: null }],
    ] as const) {
      const { capabilities, record } = layerCapabilities(provider, model, table, request);
      // Reproduction: the record alone, through the same resolver, under a different table.
      const again = resolveCapabilities(provider, model, toModelCapabilities(record));
      expect(again).toEqual(capabilities);
      expect(recordCapabilities(again)).toEqual(record);
    }
  });
});
