/** How the examples print the conversation Arbor stored: a line a message, a part a block. */
import { type ArborClient, type Block } from '@arbor/client';

const blockLine = (b: Block): string => {
  switch (b.type) {
    case 'text':
      return JSON.stringify(b.text);
    case 'tool_use':
      return `tool_use ${b.name}(${JSON.stringify(b.input)})`;
    case 'tool_result':
      return `tool_result ${b.name === undefined ? '' : `${b.name} `}${JSON.stringify(b.content)}`;
    case 'reasoning':
      return `reasoning ${b.id ?? ''} ${JSON.stringify(b.summary.map((s) => s.text))}`;
    default:
      return b.type;
  }
};

/** Prints the active branch of `conversationId`, with each message's usage where it has one. */
export const printStored = async (client: ArborClient, conversationId: string): Promise<void> => {
  console.log(`\nStored in Arbor (${conversationId}):`);
  for await (const m of client.messages(conversationId)) {
    const usage = m.usage ? `  [in ${m.usage.input_tokens}, out ${m.usage.output_tokens}]` : '';
    console.log(`  ${m.role.padEnd(9)} ${m.content.map(blockLine).join(' | ')}${usage}`);
  }
};
