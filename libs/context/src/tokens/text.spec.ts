import { countTextTokens } from './text';

describe('countTextTokens', () => {
  it('counts with o200k_base by default and cl100k_base on request', () => {
    expect(countTextTokens('')).toBe(0);
    expect(countTextTokens('hello world')).toBe(2);
    // The two vocabularies split this differently; each count is its tokenizer's.
    const sample = 'Snapshot compaction renders discarded history onto dense pages.';
    expect(countTextTokens(sample)).toBeGreaterThan(5);
    expect(countTextTokens(sample, 'cl100k_base')).toBeGreaterThan(5);
    expect(countTextTokens('    indented', 'cl100k_base')).not.toBe(0);
  });

  it('counts special-token strings in user text as plain text instead of throwing', () => {
    expect(countTextTokens('before <|endoftext|> after')).toBeGreaterThan(3);
    expect(countTextTokens('<|im_start|>', 'cl100k_base')).toBeGreaterThan(1);
  });
});
