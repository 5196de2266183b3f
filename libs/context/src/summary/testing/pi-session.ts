/**
 * A tiny reader of pi coding-agent session files (format v1, one JSON record a line) into neutral
 * messages, enough to feed real transcripts to tests: user and assistant text, tool calls, tool
 * results (each its own user message), thinking. Other records are skipped.
 */
import { readFileSync } from 'node:fs';
import type { Block, Message } from '@arbor/domain/messages';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function blocks(record: Json): Block[] {
  const content = Array.isArray(record.content) ? record.content.filter(isObject) : [];
  if (record.role === 'toolResult') {
    const text = content
      .filter((b) => b.type === 'text')
      .map((b) => str(b.text))
      .join('\n');
    return [
      {
        type: 'tool_result',
        tool_use_id: str(record.toolCallId),
        content: text,
        ...(record.isError === true ? { is_error: true } : {}),
      },
    ];
  }
  return content.flatMap((b): Block[] => {
    if (b.type === 'text') return [{ type: 'text', text: str(b.text) }];
    if (b.type === 'toolCall')
      return [{ type: 'tool_use', id: str(b.id), name: str(b.name), input: b.arguments }];
    if (b.type === 'thinking') {
      return [{ type: 'thinking', thinking: str(b.thinking), signature: str(b.thinkingSignature) }];
    }
    return [];
  });
}

export function readPiSession(path: string): Message[] {
  const messages: Message[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const entry: unknown = JSON.parse(line);
    if (!isObject(entry) || entry.type !== 'message' || !isObject(entry.message)) continue;
    const record = entry.message;
    const index = messages.length;
    messages.push({
      id: `pi${index + 1}`,
      parentId: index === 0 ? null : `pi${index}`,
      role: record.role === 'assistant' ? 'assistant' : 'user',
      content: blocks(record),
      ...(typeof record.model === 'string' ? { model: record.model } : {}),
      turnId: `t${index + 1}`,
      createdAt: str(entry.timestamp),
    });
  }
  return messages;
}
