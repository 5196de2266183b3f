/** `toTurns`: which prefix of a LangChain message list makes whole Arbor turns. */
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { type BaseMessage } from '@langchain/core/messages';
import { toTurns } from '../src';

const ser = (messages: BaseMessage[]) => messages.map((message) => ({ message, json: {} }));
const call = (id: string) => ({ id, name: 'f', args: { x: 1 } });

describe('toTurns', () => {
  it('commits a question with its answer, keeps an unanswered question', () => {
    const { turns, covered } = toTurns(
      ser([new HumanMessage('a'), new AIMessage('b'), new HumanMessage('c')]),
      null,
    );
    expect(turns.map((t) => t.messages.map((m) => m.role))).toEqual([['user', 'assistant']]);
    expect(covered).toBe(2);
  });

  it('keeps calls without results (an approval pause), commits once every call is answered', () => {
    const paused = [
      new HumanMessage('go'),
      new AIMessage({ content: '', tool_calls: [call('c1'), call('c2')] }),
    ];
    expect(toTurns(ser(paused), null).covered).toBe(0);
    const one = [...paused, new ToolMessage({ content: 'r1', tool_call_id: 'c1' })];
    expect(toTurns(ser(one), null).covered).toBe(0);
    const both = [...one, new ToolMessage({ content: 'r2', tool_call_id: 'c2' })];
    const { turns } = toTurns(ser(both), null);
    expect(turns).toHaveLength(1);
    expect(turns[0].end).toBe('tool_results');
    // Two tool messages, one Arbor user message of two tool_results.
    expect(turns[0].messages.map((m) => m.content.map((b) => b.type).join('+'))).toEqual([
      'text',
      'tool_use+tool_use',
      'tool_result+tool_result',
    ]);
  });

  it('continues after tool results with the assistant, and stops at what Arbor cannot hold', () => {
    expect(toTurns(ser([new AIMessage('done')]), 'tool_results').covered).toBe(1);
    const image = new HumanMessage({ content: [{ type: 'image_url', image_url: { url: 'x' } }] });
    expect(toTurns(ser([image, new AIMessage('seen')]), null).covered).toBe(0);
  });
});
