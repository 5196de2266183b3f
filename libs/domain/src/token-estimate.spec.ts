import { estimateTokens, IMAGE_TOKEN_ESTIMATE } from './token-estimate';
import { pngBase64 } from './testing/images';

describe('estimateTokens', () => {
  it('counts about four characters per token across block kinds', () => {
    expect(estimateTokens([{ type: 'text', text: 'x'.repeat(40) }])).toBe(10);
    expect(
      estimateTokens([{ type: 'thinking', thinking: 'x'.repeat(8), signature: 'long-sig' }]),
    ).toBe(2);
    expect(estimateTokens([{ type: 'tool_use', id: 'a', name: 'ls', input: { p: 1 } }])).toBe(
      Math.ceil((2 + '{"p":1}'.length) / 4),
    );
    expect(
      estimateTokens([
        {
          type: 'tool_result',
          tool_use_id: 'a',
          content: [{ type: 'text', text: 'x'.repeat(12) }],
        },
      ]),
    ).toBe(3);
  });

  it('charges images a flat rate, not their base64 size', () => {
    const image = {
      type: 'image' as const,
      source: {
        type: 'base64' as const,
        media_type: 'image/png' as const,
        data: pngBase64(100_000),
      },
    };
    expect(estimateTokens([image])).toBe(IMAGE_TOKEN_ESTIMATE);
    expect(estimateTokens([{ type: 'tool_result', tool_use_id: 'a', content: [image] }])).toBe(
      IMAGE_TOKEN_ESTIMATE,
    );
  });

  it('never returns less than one', () => {
    expect(estimateTokens([{ type: 'tool_result', tool_use_id: 'a', content: '' }])).toBe(1);
  });
});
