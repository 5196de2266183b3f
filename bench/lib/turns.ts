/** Message and turn bodies for the benches: plausible text of a chosen size. */
import { type MessageInput, parseMessages } from '@arbor/domain';

const WORDS = [
  'the',
  'agent',
  'reads',
  'file',
  'src/index.ts',
  'and',
  'runs',
  'tests',
  'before',
  'editing',
  'function',
  'returns',
  'error',
  'when',
  'input',
  'is',
  'empty',
  'so',
  'we',
  'check',
  'length',
  'first',
  'then',
  'commit',
];

/** About `bytes` characters of words, varied by `seed`. */
export const text = (bytes: number, seed = 0): string => {
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; length < bytes; i++) {
    const w = WORDS[(i * 7 + seed * 13) % WORDS.length];
    parts.push(w);
    length += w.length + 1;
  }
  return parts.join(' ').slice(0, bytes);
};

export interface MessageBody {
  role: 'user' | 'assistant';
  content: { type: 'text'; text: string }[];
}

export const userMessage = (body: string): MessageBody => ({
  role: 'user',
  content: [{ type: 'text', text: body }],
});

export const assistantMessage = (body: string): MessageBody => ({
  role: 'assistant',
  content: [{ type: 'text', text: body }],
});

/** A user + assistant turn whose JSON body is about `bytes` long. */
export const turnBody = (
  parentId: string | null,
  expectedTip: string | null,
  bytes: number,
  seed: number,
) => ({
  parentId,
  expectedTip,
  messages: [
    userMessage(text(bytes / 2 - 60, seed)),
    assistantMessage(text(bytes / 2 - 60, seed + 1)),
  ],
});

/** An assistant message that calls a tool. */
export const toolCallMessage = (id: string, command: string) => ({
  role: 'assistant' as const,
  content: [{ type: 'tool_use' as const, id, name: 'bash', input: { command } }],
});

/** The user message answering a tool call. */
export const toolResultMessage = (id: string, output: string) => ({
  role: 'user' as const,
  content: [{ type: 'tool_result' as const, tool_use_id: id, content: output }],
});

/**
 * One agent turn of `2 * pairs` messages (to build deep conversations fast): a prompt, then
 * `pairs - 1` tool calls each answered by its result, then the final answer.
 */
export const longTurnBody = (parentId: string | null, pairs: number, bytes: number) => {
  const tag = Math.random().toString(36).slice(2, 10);
  const loop = Array.from({ length: pairs - 1 }, (_, k) => [
    toolCallMessage(`toolu_${tag}_${k}`, text(bytes / 2, k)),
    toolResultMessage(`toolu_${tag}_${k}`, text(bytes, k + 1)),
  ]).flat();
  return {
    parentId,
    expectedTip: parentId,
    messages: [userMessage(text(bytes, 0)), ...loop, assistantMessage(text(bytes, 1))],
  };
};

/**
 * An agent turn of 4 messages: the user asks, the model calls `tool`, the tool answers with
 * `result` (content blocks), the model answers.
 */
export const toolTurn = (
  i: number,
  userBytes: number,
  tool: { name: string; input: unknown },
  result: unknown[],
): unknown[] => {
  const callId = `toolu_${i}`;
  const model = 'claude-sonnet-4-5';
  const usage = { input_tokens: 1200, output_tokens: 80 };
  return [
    { role: 'user', content: [{ type: 'text', text: text(userBytes, i) }] },
    { role: 'assistant', content: [{ type: 'tool_use', id: callId, ...tool }], model, usage },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: callId, content: result }] },
    { role: 'assistant', content: [{ type: 'text', text: text(200, i + 3) }], model, usage },
  ];
};

/** One agent turn of 4 messages, the same words and sizes as pi's side (bench/peers/pi-side.mjs). */
export const rawTurn = (i: number): unknown[] =>
  toolTurn(i, 200, { name: 'bash', input: { command: text(60, i + 1) } }, [
    { type: 'text', text: text(400, i + 2) },
  ]);

export const parsedTurn = (raw: unknown[]): MessageInput[] => {
  const parsed = parseMessages(raw);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.value;
};
