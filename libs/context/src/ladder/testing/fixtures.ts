/**
 * Real session files (shared/fixtures/real) → a provider-valid neutral window, for tests and the
 * bench. Claude Code goes through the domain's converter (its first path of turns); pi v1 lines
 * (`type: 'message'`, roles user / assistant / toolResult) through the small converter below.
 * Only whole turns that pass the domain's turn rules are kept; the others are counted.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Block, Message, MessageInput } from '@arbor/domain/messages';
import { convertClaudeCode } from '@arbor/domain/testing/claude-code';
import { checkTurn } from '@arbor/domain/turn-rules';
import { parseMessage } from '@arbor/domain/validate-message';

/** shared/ sits beside the repository. */
export const REAL_FIXTURES = path.resolve(__dirname, '../../../../../../shared/fixtures/real');

export interface LoadedWindow {
  file: string;
  messages: Message[];
  skippedTurns: number;
}

/** Links turns into committed messages (ids kept when given, else `<prefix>-<n>`). */
export function commitTurns(turns: readonly MessageInput[][], prefix: string): Message[] {
  const out: Message[] = [];
  turns.forEach((turn, t) => {
    for (const m of turn) {
      const id = m.id ?? `${prefix}-${out.length + 1}`;
      out.push({
        id,
        parentId: out.length === 0 ? null : out[out.length - 1].id,
        role: m.role,
        content: m.content,
        ...(m.model !== undefined ? { model: m.model } : {}),
        ...(m.pinned !== undefined ? { pinned: m.pinned } : {}),
        turnId: `${prefix}-t${t + 1}`,
        createdAt: new Date(Date.UTC(2025, 0, 1, 0, 0, out.length)).toISOString(),
      });
    }
  });
  return out;
}

const KNOWN_INNER = new Set(['text', 'image']);

/**
 * What the domain converter does not take, made importable the way an importer would:
 * - tool_result content blocks of unknown types (Claude Code's `tool_reference`) become text;
 * - a subagent transcript is all sidechain records, which the converter skips as side branches
 *   of a main session: read on its own, it is the main line;
 * - a transcript opening with an assistant record (a subagent's) gets a one-line user prompt.
 */
function importable(jsonl: string, subagent: boolean): string {
  const records = jsonl
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  for (const record of records) {
    if (subagent) record.isSidechain = false;
    const message = record.message as { content?: unknown } | undefined;
    if (!Array.isArray(message?.content)) continue;
    for (const block of message.content as Record<string, unknown>[]) {
      if (block.type !== 'tool_result' || !Array.isArray(block.content)) continue;
      block.content = (block.content as Record<string, unknown>[]).map((inner) =>
        KNOWN_INNER.has(String(inner.type))
          ? inner
          : { type: 'text', text: `[${String(inner.type)}] ${JSON.stringify(inner)}` },
      );
    }
  }
  const root = records.find((r) => r.parentUuid === null && typeof r.uuid === 'string');
  if (subagent && root?.type === 'assistant') {
    root.parentUuid = 'synthetic-prompt';
    records.unshift({
      type: 'user',
      uuid: 'synthetic-prompt',
      parentUuid: null,
      message: { role: 'user', content: '(subagent task)' },
    });
  }
  return records.map((r) => JSON.stringify(r)).join('\n');
}

/** Claude Code: the first path of turns from the root (each turn continues the previous one). */
export function loadClaudeCode(file: string): LoadedWindow {
  const raw = fs.readFileSync(file, 'utf8');
  const subagent = /(__subagents__|__)agent-/.test(path.basename(file));
  const conversion = convertClaudeCode(importable(raw, subagent));
  const chosen: MessageInput[][] = [];
  let tip: string | null = null;
  let skipped = 0;
  for (const turn of conversion.turns) {
    if (turn.parentId !== tip) {
      skipped++;
      continue;
    }
    const ids = new Set(chosen.flat().map((m) => m.id));
    if (checkTurn(turn.messages, { atRoot: tip === null, idExists: (id) => ids.has(id) }).length) {
      skipped++;
      continue;
    }
    chosen.push(turn.messages);
    tip = turn.messages[turn.messages.length - 1].id ?? null;
  }
  return { file: path.basename(file), messages: commitTurns(chosen, 'cc'), skippedTurns: skipped };
}

interface PiBlock {
  type?: string;
  text?: string;
  thinking?: string;
  thinkingSignature?: string;
  id?: string;
  name?: string;
  arguments?: unknown;
  data?: string;
  mimeType?: string;
}

interface PiMessage {
  role?: string;
  content?: string | PiBlock[];
  toolCallId?: string;
  isError?: boolean;
  model?: string;
}

const piBlocks = (content: PiMessage['content']): PiBlock[] =>
  typeof content === 'string' ? [{ type: 'text', text: content }] : (content ?? []);

function piContent(m: PiMessage): Block[] {
  const out: Block[] = [];
  for (const b of piBlocks(m.content)) {
    if (b.type === 'text' && typeof b.text === 'string') out.push({ type: 'text', text: b.text });
    else if (b.type === 'thinking' && typeof b.thinking === 'string') {
      if (b.thinkingSignature) {
        out.push({ type: 'thinking', thinking: b.thinking, signature: b.thinkingSignature });
      }
    } else if (b.type === 'toolCall' && b.id && b.name) {
      out.push({ type: 'tool_use', id: b.id, name: b.name, input: b.arguments ?? {} });
    } else if (b.type === 'image' && b.data && b.mimeType) {
      out.push({
        type: 'image',
        source: { type: 'base64', media_type: b.mimeType as 'image/png', data: b.data },
      });
    }
  }
  return out;
}

/** pi v1: linear; consecutive toolResult lines become one user message of tool_result blocks. */
export function convertPi(jsonl: string): { turns: MessageInput[][]; skippedTurns: number } {
  const flat: MessageInput[] = [];
  for (const line of jsonl.split('\n')) {
    if (line.trim() === '') continue;
    const record = JSON.parse(line) as { type?: string; message?: PiMessage };
    const m = record.message;
    if (record.type !== 'message' || m === undefined) continue;
    if (m.role === 'toolResult' && m.toolCallId) {
      const text = piBlocks(m.content)
        .filter((b) => b.type === 'text')
        .map((b) => b.text ?? '')
        .join('\n');
      const block: Block = {
        type: 'tool_result',
        tool_use_id: m.toolCallId,
        content: text,
        ...(m.isError ? { is_error: true } : {}),
      };
      const last = flat[flat.length - 1];
      if (last?.role === 'user' && last.content.every((b) => b.type === 'tool_result')) {
        last.content.push(block);
      } else flat.push({ role: 'user', content: [block] });
    } else if (m.role === 'user' || m.role === 'assistant') {
      const content = piContent(m);
      if (content.length > 0) {
        flat.push({ role: m.role, content, ...(m.model ? { model: m.model } : {}) });
      }
    }
  }
  // Cut into turns at user prompts (a user message without tool results).
  const raw: MessageInput[][] = [];
  for (const m of flat) {
    const prompt = m.role === 'user' && !m.content.some((b) => b.type === 'tool_result');
    if (prompt || raw.length === 0) raw.push([m]);
    else raw[raw.length - 1].push(m);
  }
  const turns: MessageInput[][] = [];
  let skippedTurns = 0;
  for (const turn of raw) {
    const parsed = turn.every((m) => parseMessage(m).ok);
    if (!parsed || checkTurn(turn, { atRoot: turns.length === 0 }).length > 0) skippedTurns++;
    else turns.push(turn);
  }
  return { turns, skippedTurns };
}

export function loadPi(file: string): LoadedWindow {
  const { turns, skippedTurns } = convertPi(fs.readFileSync(file, 'utf8'));
  return { file: path.basename(file), messages: commitTurns(turns, 'pi'), skippedTurns };
}

/** Every real fixture as a window: claude-code/*.jsonl and pi/*.jsonl. */
export function loadRealWindows(): LoadedWindow[] {
  const dir = (sub: string) => path.join(REAL_FIXTURES, sub);
  const list = (sub: string) =>
    fs
      .readdirSync(dir(sub))
      .filter((f) => f.endsWith('.jsonl'))
      .sort()
      .map((f) => path.join(dir(sub), f));
  return [...list('claude-code').map(loadClaudeCode), ...list('pi').map(loadPi)];
}
