/** Cheap and deterministic (resume cuts); the context lib measures properly. */
import { type Block } from './messages';

/** Tokens charged per image: about what a ~1.15 megapixel image costs on Anthropic. */
export const IMAGE_TOKEN_ESTIMATE = 1600;

interface Tally {
  chars: number;
  images: number;
}

const tallyBlock = (block: Block, t: Tally): void => {
  switch (block.type) {
    case 'text':
      t.chars += block.text.length;
      return;
    case 'image':
      t.images += 1;
      return;
    case 'thinking':
      t.chars += block.thinking.length;
      return;
    case 'redacted_thinking':
      t.chars += block.data.length;
      return;
    case 'tool_use':
      t.chars += block.name.length + (JSON.stringify(block.input) ?? '').length;
      return;
    case 'tool_result':
      if (typeof block.content === 'string') t.chars += block.content.length;
      else for (const inner of block.content) tallyBlock(inner, t);
      return;
  }
};

export const estimateTokens = (content: readonly Block[]): number => {
  const t: Tally = { chars: 0, images: 0 };
  for (const block of content) tallyBlock(block, t);
  return Math.max(1, Math.ceil(t.chars / 4) + t.images * IMAGE_TOKEN_ESTIMATE);
};
