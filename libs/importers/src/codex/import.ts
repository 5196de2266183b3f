/** Codex CLI rollout files → conversations (the format's rules: README.md). */
import path from 'node:path';
import { type Block, type Usage } from '@arbor/domain';
import { asText, isJson, type Json, usageOf } from '../core/blocks';
import { createNotes, type Notes } from '../core/notes';
import { recordsToConversations } from '../core/pipeline';
import { fileImport } from '../core/report';
import { readJsonLines, str } from '../jsonl';
import {
  type FileImport,
  type ImportedConversation,
  type Item,
  type SourceMessage,
  type SourceRecord,
} from '../types';
import { imageFromUrl, messageItems, toolCall, toolOutput } from './items';

export interface ImportOptions {
  maxImageBytes?: number;
}

/** The rollout line types; a file whose first line is one of them is a Codex rollout. */
export const ROLLOUT_TYPES = new Set([
  'session_meta',
  'response_item',
  'turn_context',
  'event_msg',
  'compacted',
]);

/** OpenAI counts cached input inside `input_tokens`; Arbor (Anthropic's names) does not. */
const codexUsage = (u: unknown): Usage | undefined => {
  const x = isJson(u) ? u : undefined;
  if (x === undefined) return undefined;
  const input = typeof x.input_tokens === 'number' ? x.input_tokens : undefined;
  const cached = typeof x.cached_input_tokens === 'number' ? x.cached_input_tokens : 0;
  return usageOf([
    ['input_tokens', input === undefined ? undefined : Math.max(0, input - cached)],
    ['output_tokens', x.output_tokens],
    ['cache_read_input_tokens', cached > 0 ? cached : undefined],
  ]);
};

interface State {
  notes: Notes;
  records: SourceRecord[];
  previous: string | null;
  model?: string;
  response: { apiId: string; message: SourceMessage } | null;
  userTexts: Set<string>;
  messages: number;
}

const push = (s: State, line: number, id: string, message: SourceMessage): void => {
  s.records.push({ line, id, parentId: s.previous, message });
  s.previous = id;
  s.messages += 1;
};

const userSide = (s: State, line: number, id: string, items: Item[], timestamp?: string) => {
  s.response = null;
  push(s, line, id, { role: 'user', items, ...(timestamp ? { timestamp } : {}) });
};

const assistantSide = (s: State, line: number, id: string, items: Item[], timestamp?: string) => {
  const apiId = s.response?.apiId ?? `R${id}`;
  const message: SourceMessage = {
    role: 'assistant',
    apiId,
    items,
    ...(s.model !== undefined ? { model: s.model } : {}),
    ...(timestamp ? { timestamp } : {}),
  };
  s.response = { apiId, message };
  s.userTexts.clear();
  push(s, line, id, message);
};

const textOf = (items: Item[]): string =>
  items
    .flatMap((it) => (it.block.type === 'text' ? [it.block.text] : []))
    .join('\n')
    .trim();

const reasoningBlock = (p: Json): Block | null => {
  const summary = Array.isArray(p.summary) ? p.summary : [];
  const parts: { type: 'summary_text'; text: string }[] = [];
  for (const part of summary) {
    if (!isJson(part) || part.type !== 'summary_text' || typeof part.text !== 'string') return null;
    parts.push({ type: 'summary_text', text: part.text });
  }
  // Codex writes reasoning items without their id; kept so when there is none.
  const base: Block =
    typeof p.id === 'string' && p.id !== ''
      ? { type: 'reasoning', id: p.id, summary: parts }
      : { type: 'reasoning', summary: parts };
  return typeof p.encrypted_content === 'string' && p.encrypted_content !== ''
    ? { ...base, encrypted_content: p.encrypted_content }
    : base;
};

const responseItem = (s: State, p: Json, line: number, id: string, timestamp?: string): void => {
  const { notes } = s;
  switch (p.type) {
    case 'message': {
      const items = messageItems(p.content, line, notes);
      if (p.role === 'assistant') return assistantSide(s, line, id, items, timestamp);
      if (p.role === 'developer' || p.role === 'system')
        notes.change(line, `${String(p.role)} message imported as user text, as Codex sends it`);
      else if (p.role !== 'user') {
        notes.skip(line, `message with unknown role ${String(p.role)}`);
        return;
      }
      if (p.role === 'user') s.userTexts.add(textOf(items));
      return userSide(s, line, id, items, timestamp);
    }
    case 'function_call':
    case 'custom_tool_call':
    case 'local_shell_call':
      return assistantSide(s, line, id, toolCall(p, line, notes), timestamp);
    case 'function_call_output':
    case 'custom_tool_call_output':
      return userSide(s, line, id, toolOutput(p, line, notes), timestamp);
    case 'web_search_call':
      notes.change(
        line,
        'web_search_call (a search the provider ran) kept as assistant text: Arbor has no server tool block',
      );
      return assistantSide(s, line, id, [{ line, block: asText(p) }], timestamp);
    case 'reasoning': {
      const block = reasoningBlock(p);
      if (block === null) {
        notes.skip(line, 'reasoning item with a malformed summary not imported');
        return;
      }
      return assistantSide(s, line, id, [{ line, block }], timestamp);
    }
    case 'ghost_snapshot':
      notes.skip(line, 'ghost_snapshot (a git snapshot for /undo, not sent to the model)');
      return;
    case 'compaction':
      // Kept byte for byte as an opaque OpenAI block: sent back only to the Responses API of the
      // same model family, and what it replaces is neither sent nor counted there.
      return assistantSide(
        s,
        line,
        id,
        [{ line, block: { type: 'provider', provider: 'openai', item: p } }],
        timestamp,
      );
    case 'compaction_summary':
      notes.skip(line, 'compaction_summary item (encrypted, readable only by OpenAI) not imported');
      return;
    default:
      notes.skip(line, `response_item ${String(p.type)} not imported`);
  }
};

const eventMsg = (s: State, p: Json, line: number, timestamp?: string): void => {
  const { notes } = s;
  if (p.type === 'token_count') {
    const usage = codexUsage(isJson(p.info) ? p.info.last_token_usage : undefined);
    if (usage !== undefined && s.response !== null) s.response.message.usage = usage;
    return;
  }
  if (p.type === 'user_message') {
    const text = typeof p.message === 'string' ? p.message : '';
    if (s.userTexts.has(text.trim())) {
      notes.skip(
        line,
        'event_msg user_message (the same prompt is in the response_item before it)',
      );
      return;
    }
    const items: Item[] = [];
    if (text !== '') items.push({ line, block: { type: 'text', text } });
    for (const url of Array.isArray(p.images) ? p.images : []) {
      const img = imageFromUrl(url);
      items.push({ line, block: img ?? { type: 'text', text: `[image: ${String(url)}]` } });
    }
    notes.change(line, 'user prompt taken from event_msg user_message (no response_item holds it)');
    s.userTexts.add(text.trim());
    userSide(s, line, `L${line}`, items, timestamp);
    return;
  }
  notes.skip(line, `event_msg ${String(p.type)} (a UI event, not part of the model's history)`);
};

export const importCodex = (
  file: string,
  text: string,
  options: ImportOptions = {},
): FileImport => {
  const notes = createNotes();
  const lines = readJsonLines(text, notes.skipped);
  const s: State = {
    notes,
    records: [],
    previous: null,
    response: null,
    userTexts: new Set(),
    messages: 0,
  };
  let meta: Json | undefined;
  const compactions: { line: number; replaced: boolean }[] = [];
  for (const { line, value: v } of lines) {
    const p = isJson(v.payload) ? v.payload : {};
    const timestamp = str(v.timestamp);
    switch (v.type) {
      case 'session_meta':
        if (meta === undefined) meta = isJson(p.meta) ? { ...p, ...p.meta } : p;
        else notes.skip(line, 'a second session_meta (the first one names the session)');
        break;
      case 'turn_context':
        if (typeof p.model === 'string') s.model = p.model;
        break;
      case 'response_item':
        responseItem(s, p, line, `L${line}`, timestamp);
        break;
      case 'event_msg':
        eventMsg(s, p, line, timestamp);
        break;
      case 'compacted': {
        const history = Array.isArray(p.replacement_history) ? p.replacement_history : [];
        if (s.messages === 0 && history.length > 0) {
          notes.change(
            line,
            'compacted record at the start of the file: its replacement history imported as the history',
          );
          history.forEach((item, i) => {
            if (isJson(item)) responseItem(s, item, line, `L${line}-h${i}`, timestamp);
          });
          compactions.push({ line, replaced: true });
        } else {
          notes.skip(
            line,
            'compacted record: its summary and replacement history are not imported (the records it replaces are in the file; Arbor compacts when it builds a context)',
          );
          compactions.push({ line, replaced: false });
        }
        break;
      }
      default:
        notes.skip(line, `${String(v.type)} line (not a rollout item)`);
    }
  }
  if (meta === undefined) notes.skip(0, 'no session_meta line');
  const core = recordsToConversations(s.records, notes, options);
  const base = path.basename(file).replace(/\.jsonl$/, '');
  const sessionId = str(meta?.id);
  const conversations = core.map((c, i): ImportedConversation => {
    if (i > 0) notes.change(c.firstLine, 'a second root turn imported as its own conversation');
    return {
      title: i === 0 ? base : `${base} (root ${i + 1})`,
      kind: i === 0 ? 'main' : 'separate-root',
      turns: c.turns,
      tip: c.tip,
      activeBranch: c.activeBranch,
      branchPoints: c.branchPoints,
      checkpoints: [],
      metadata: {
        source: {
          format: 'codex',
          file: path.basename(file),
          kind: i === 0 ? 'main' : 'separate-root',
          firstLine: c.firstLine,
          ...(sessionId !== undefined ? { sessionId } : {}),
          ...(str(meta?.cwd) !== undefined ? { cwd: str(meta?.cwd) } : {}),
          ...(str(meta?.cli_version) !== undefined ? { cliVersion: str(meta?.cli_version) } : {}),
          ...(str(meta?.originator) !== undefined ? { originator: str(meta?.originator) } : {}),
          ...(compactions.length > 0 ? { compactions } : {}),
        },
      },
    };
  });
  return fileImport(file, 'codex', conversations, notes);
};
