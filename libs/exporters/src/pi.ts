/** Arbor tree → a pi session file, version 3 (what it writes and loses: README.md). */
import {
  type Block,
  imageSourceLabel,
  type Message,
  type ToolResultContentBlock,
} from '@arbor/domain';
import { fileStamp, orPlaceholder, PLACEHOLDER_TEXT, plan, sessionResult } from './common';
import { type ExportNote, type ExportResult, type ExportSource } from './types';

const providerOf = (model: string | undefined): { provider: string; api: string } | undefined => {
  if (model === undefined) return undefined;
  if (/^claude/i.test(model)) return { provider: 'anthropic', api: 'anthropic-messages' };
  if (/^(gpt|o\d|codex|chatgpt)/i.test(model))
    return { provider: 'openai', api: 'openai-responses' };
  if (/^gemini/i.test(model)) return { provider: 'google', api: 'google-generative-ai' };
  return undefined;
};

type PiPart = Record<string, unknown>;

const piResultContent = (content: string | ToolResultContentBlock[]): PiPart[] =>
  typeof content === 'string'
    ? content === ''
      ? []
      : [{ type: 'text', text: content }]
    : content.map((c) =>
        c.type === 'text'
          ? { type: 'text', text: c.text }
          : c.source.type === 'base64'
            ? { type: 'image', data: c.source.data, mimeType: c.source.media_type }
            : { type: 'text', text: `[image: ${imageSourceLabel(c.source)}]` },
      );

const piPart = (b: Block): PiPart | null => {
  switch (b.type) {
    case 'text':
      return { type: 'text', text: b.text };
    case 'image':
      return b.source.type === 'base64'
        ? { type: 'image', data: b.source.data, mimeType: b.source.media_type }
        : { type: 'text', text: `[image: ${imageSourceLabel(b.source)}]` };
    case 'thinking':
      return { type: 'thinking', thinking: b.thinking, thinkingSignature: b.signature };
    case 'redacted_thinking':
      return { type: 'thinking', thinking: '', thinkingSignature: b.data, redacted: true };
    case 'tool_use':
      return { type: 'toolCall', id: b.id, name: b.name, arguments: b.input };
    case 'tool_result':
      return null; // its own toolResult message
    case 'reasoning':
    case 'provider':
      return null; // pi has no place for OpenAI reasoning items or opaque provider blocks
  }
};

const usageOf = (m: Message) => {
  const u = m.usage ?? {};
  const input = u.input_tokens ?? 0;
  const output = u.output_tokens ?? 0;
  const cacheRead = u.cache_read_input_tokens ?? 0;
  const cacheWrite = u.cache_creation_input_tokens ?? 0;
  return {
    input,
    output,
    cacheRead,
    cacheWrite,
    totalTokens: input + output + cacheRead + cacheWrite,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
};

export interface PiExportOptions {
  cwd?: string;
}

export const exportPi = (source: ExportSource, options: PiExportOptions = {}): ExportResult => {
  const p = plan(source, 'pi');
  const lost: ExportNote[] = [...p.lost];
  const created = p.messages.map((m) => m.createdAt).sort()[0] ?? new Date(0).toISOString();
  const header = {
    type: 'session',
    version: 3,
    id: source.conversationId,
    timestamp: created,
    cwd: options.cwd ?? '/',
  };
  const lines: unknown[] = [header];
  /** Known up front: a child may be written before its parent (the active branch goes last). */
  const lastEntry = new Map<string, string>();
  for (const m of p.messages) {
    const results = m.content.filter((b) => b.type === 'tool_result').length;
    const rest = m.content.length - results;
    lastEntry.set(
      m.id,
      m.role !== 'user' || results === 0
        ? m.id
        : rest > 0
          ? `${m.id}_u`
          : results === 1
            ? m.id
            : `${m.id}_r${results}`,
    );
  }
  const toolNames = new Map<string, string>();
  for (const m of p.messages)
    for (const b of m.content) {
      if (b.type === 'tool_use') toolNames.set(b.id, b.name);
      if (b.type === 'reasoning' || b.type === 'provider')
        lost.push({
          messageId: m.id,
          reason: `${b.type} block not carried: pi sessions have no OpenAI reasoning or provider blocks`,
        });
    }
  let lastTimestamp = created;
  const placeholder: PiPart = { type: 'text', text: PLACEHOLDER_TEXT };

  for (const m of p.messages) {
    const parent = p.parentOf.get(m.id) ?? null;
    let parentEntry = parent === null ? null : (lastEntry.get(parent) ?? null);
    const timestamp = m.createdAt;
    const ms = Date.parse(m.createdAt);
    if (timestamp > lastTimestamp) lastTimestamp = timestamp;
    const entry = (id: string, message: Record<string, unknown>) => {
      lines.push({ type: 'message', id, parentId: parentEntry, timestamp, message });
      parentEntry = id;
    };
    if (m.role === 'assistant') {
      const names = providerOf(m.model);
      if (names === undefined)
        lost.push({
          messageId: m.id,
          reason: 'provider not known from the model name: written as provider "unknown"',
          detail: m.model ?? '(no model)',
        });
      const hasCall = m.content.some((b) => b.type === 'tool_use');
      entry(m.id, {
        role: 'assistant',
        content: orPlaceholder(
          m.id,
          m.content.flatMap((b) => piPart(b) ?? []),
          placeholder,
          lost,
        ),
        api: names?.api ?? 'unknown',
        provider: names?.provider ?? 'unknown',
        model: m.model ?? 'unknown',
        usage: usageOf(m),
        stopReason: hasCall ? 'toolUse' : 'stop',
        timestamp: ms,
      });
      continue;
    }
    const results = m.content.filter((b) => b.type === 'tool_result');
    const rest = m.content.filter((b) => b.type !== 'tool_result');
    results.forEach((b, i) => {
      if (b.type !== 'tool_result') return;
      entry(i === 0 ? m.id : `${m.id}_r${i + 1}`, {
        role: 'toolResult',
        toolCallId: b.tool_use_id,
        toolName: toolNames.get(b.tool_use_id) ?? 'unknown',
        content: piResultContent(b.content),
        isError: b.is_error === true,
        timestamp: ms,
      });
    });
    if (rest.length > 0)
      entry(results.length === 0 ? m.id : `${m.id}_u`, {
        role: 'user',
        content: orPlaceholder(
          m.id,
          rest.flatMap((b) => piPart(b) ?? []),
          placeholder,
          lost,
        ),
        timestamp: ms,
      });
  }

  // Labels and the name, chained after the tip: the file's last entry stays on the active branch.
  let leaf = p.tip === null ? null : (lastEntry.get(p.tip) ?? null);
  const trailer = (type: string, fields: Record<string, unknown>) => {
    const id = `arbor-${type}-${lines.length}`;
    lines.push({ type, id, parentId: leaf, timestamp: lastTimestamp, ...fields });
    leaf = id;
  };
  const labelled = new Set<string>();
  const byLabel = [...source.checkpoints].sort((a, b) => a.label.localeCompare(b.label));
  for (const cp of byLabel) {
    const target = lastEntry.get(cp.messageId);
    if (target === undefined) {
      lost.push({
        messageId: cp.messageId,
        reason: 'checkpoint on a message that is not written: label left out',
        detail: cp.label,
      });
      continue;
    }
    if (labelled.has(target)) {
      lost.push({
        messageId: cp.messageId,
        reason: 'checkpoint not carried: pi keeps one label per entry, and this message has one',
        detail: cp.label,
      });
      continue;
    }
    labelled.add(target);
    trailer('label', { targetId: target, label: cp.label });
  }
  if (source.title !== null && source.title !== '' && leaf !== null)
    trailer('session_info', { name: source.title });

  return sessionResult(lines, `${fileStamp(created)}_${source.conversationId}.jsonl`, {
    format: 'pi',
    messages: p.messages.length,
    lines: lines.length,
    lost,
  });
};
