/** Builders for neutral conversations in tests. */
import type { Block, ImageBlock, Message, Role, TextBlock } from '@arbor/domain/messages';
import { makePngBase64 } from './images';

export interface MessageSpec {
  role: Role;
  content: Block[];
  model?: string;
  metadata?: Record<string, unknown>;
}

/** Links specs into committed messages (ids m1, m2, …; each the parent of the next). */
export function chain(specs: readonly MessageSpec[]): Message[] {
  return specs.map((spec, index) => ({
    id: `m${index + 1}`,
    parentId: index === 0 ? null : `m${index}`,
    role: spec.role,
    content: spec.content,
    ...(spec.model !== undefined ? { model: spec.model } : {}),
    ...(spec.metadata !== undefined ? { metadata: spec.metadata } : {}),
    turnId: `t${index + 1}`,
    createdAt: new Date(Date.UTC(2025, 0, 1, 0, 0, index)).toISOString(),
  }));
}

export const text = (t: string): TextBlock => ({ type: 'text', text: t });

export const png = (width = 4, height = 3): ImageBlock => ({
  type: 'image',
  source: { type: 'base64', media_type: 'image/png', data: makePngBase64(width, height) },
});

export const PNG_DATA = makePngBase64(4, 3);

/**
 * One conversation exercising every encoder rule: a system message, an image in user content,
 * thinking with a signature, parallel tool calls answered out of order, a tool error, an image in
 * a tool result next to user text.
 */
export function sampleConversation(model = 'claude-sonnet-4-5'): Message[] {
  return chain([
    { role: 'system', content: [text('Be terse.')] },
    { role: 'user', content: [text('Look at this'), png()] },
    {
      role: 'assistant',
      model,
      content: [
        { type: 'thinking', thinking: 'Let me check both files.', signature: 'sig-A==' },
        text('Checking both files.'),
        { type: 'tool_use', id: 'call_1', name: 'read', input: { path: 'a.txt' } },
        { type: 'tool_use', id: 'call_2', name: 'read', input: { path: 'b.txt' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'call_2', content: 'B contents' },
        {
          type: 'tool_result',
          tool_use_id: 'call_1',
          content: [text('ENOENT: a.txt')],
          is_error: true,
        },
      ],
    },
    {
      role: 'assistant',
      model,
      content: [{ type: 'tool_use', id: 'call_3', name: 'screenshot', input: {} }],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'call_3', content: [text('screen'), png(8, 6)] },
        text('What do you see?'),
      ],
    },
    { role: 'assistant', model, content: [text('A login page.')] },
  ]);
}
