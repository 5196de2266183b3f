/** pi session files (v1 linear, later an id/parentId tree) → conversations (rules: README.md). */
import path from 'node:path';
import { isValidCheckpointLabel, type Usage } from '@arbor/domain';
import { type Json, usageOf } from '../core/blocks';
import { createNotes, type Notes } from '../core/notes';
import { recordsToConversations } from '../core/pipeline';
import { fileImport } from '../core/report';
import { type JsonLine, obj, readJsonLines, str } from '../jsonl';
import {
  type FileImport,
  type ImportedConversation,
  type Item,
  type SourceMessage,
  type SourceRecord,
} from '../types';
import { bashText, piItems, piToolResult } from './blocks';

export interface ImportOptions {
  maxImageBytes?: number;
}

const piUsage = (u: unknown): Usage | undefined => {
  const x = obj(u);
  if (x === undefined) return undefined;
  return usageOf([
    ['input_tokens', x.input],
    ['output_tokens', x.output],
    ['cache_read_input_tokens', x.cacheRead],
    ['cache_creation_input_tokens', x.cacheWrite],
  ]);
};

const userText = (text: string, line: number): Item[] =>
  text === '' ? [] : [{ line, block: { type: 'text', text } }];

const messageOf = (m: Json, line: number, notes: Notes): SourceMessage | undefined => {
  const role = String(m.role);
  switch (role) {
    case 'user':
      return { role: 'user', items: piItems(m.content, line, notes) };
    case 'assistant': {
      const items = piItems(m.content, line, notes);
      if (Array.isArray(m.content) && m.content.length === 0) {
        notes.skip(line, `assistant message without content (stopReason ${String(m.stopReason)})`);
        return undefined;
      }
      const usage = piUsage(m.usage);
      return {
        role: 'assistant',
        items,
        ...(str(m.model) !== undefined ? { model: str(m.model) } : {}),
        ...(usage !== undefined ? { usage } : {}),
      };
    }
    case 'toolResult':
      return { role: 'user', items: piToolResult(m, line, notes) };
    case 'bashExecution':
      if (m.excludeFromContext === true) {
        notes.skip(line, 'bash execution excluded from the model context (!! command)');
        return undefined;
      }
      notes.change(line, 'bash execution (!command) imported as user text, as pi sends it');
      return { role: 'user', items: userText(bashText(m), line) };
    case 'custom':
    case 'hookMessage':
      notes.change(line, `${role} message imported as a user message, as pi sends it`);
      return { role: 'user', items: piItems(m.content, line, notes) };
    case 'branchSummary':
    case 'compactionSummary':
      notes.change(line, `${role} message imported as user text, as pi sends it`);
      return { role: 'user', items: userText(String(m.summary ?? ''), line) };
    default:
      notes.skip(line, `message with unknown role ${role}`);
      return undefined;
  }
};

interface Extras {
  title?: string;
  labels: Map<string, { label: string | undefined; line: number }>;
}

const entryMessage = (
  v: Json,
  line: number,
  notes: Notes,
  extras: Extras,
): SourceMessage | undefined => {
  switch (v.type) {
    case 'message': {
      const m = obj(v.message);
      if (m === undefined) {
        notes.skip(line, 'message entry without a message');
        return undefined;
      }
      return messageOf(m, line, notes);
    }
    case 'branch_summary':
      notes.change(line, 'branch summary imported as user text, as pi sends it');
      return { role: 'user', items: userText(String(v.summary ?? ''), line) };
    case 'custom_message':
      notes.change(line, 'custom message imported as a user message, as pi sends it');
      return { role: 'user', items: piItems(v.content, line, notes) };
    case 'compaction': {
      // What pi kept after it: from `firstKeptEntryId` (v2+), `firstKeptEntryIndex` (v1), or a
      // retained tail of copies; every one of those messages is in the file and imported.
      const kept =
        typeof v.firstKeptEntryId === 'string'
          ? `firstKeptEntryId ${v.firstKeptEntryId}`
          : typeof v.firstKeptEntryIndex === 'number'
            ? `firstKeptEntryIndex ${v.firstKeptEntryIndex}`
            : Array.isArray(v.retainedTail)
              ? `retained tail of ${v.retainedTail.length} entries`
              : undefined;
      notes.skip(
        line,
        'compaction summary not imported: every source message is kept, and Arbor compacts when it builds a context',
        kept,
      );
      return undefined;
    }
    case 'label': {
      const target = str(v.targetId);
      if (target !== undefined) extras.labels.set(target, { label: str(v.label), line });
      return undefined;
    }
    case 'session_info':
      if (typeof v.name === 'string' && v.name.trim() !== '') extras.title = v.name;
      return undefined;
    default:
      notes.skip(line, `${String(v.type)} entry (not a message)`);
      return undefined;
  }
};

const toRecords = (
  lines: JsonLine[],
  v1: boolean,
  notes: Notes,
  extras: Extras,
): SourceRecord[] => {
  const records: SourceRecord[] = [];
  let previous: string | null = null;
  for (const { line, value: v } of lines) {
    const id = v1 ? `L${line}` : str(v.id);
    if (id === undefined) {
      notes.skip(line, `${String(v.type)} entry without id`);
      continue;
    }
    const parentId = v1 ? previous : (str(v.parentId) ?? null);
    previous = id;
    const message = entryMessage(v, line, notes, extras);
    const timestamp = str(v.timestamp);
    records.push({
      line,
      id,
      parentId,
      ...(message !== undefined
        ? { message: { ...message, ...(timestamp ? { timestamp } : {}) } }
        : {}),
    });
  }
  return records;
};

export const importPi = (file: string, text: string, options: ImportOptions = {}): FileImport => {
  const notes = createNotes();
  const lines = readJsonLines(text, notes.skipped);
  const headerAt = lines.findIndex((l) => l.value.type === 'session');
  const header = headerAt < 0 ? undefined : lines[headerAt].value;
  const version = typeof header?.version === 'number' ? header.version : 1;
  if (header === undefined) notes.skip(0, 'no session header: read as a version 1 file');
  const entries = lines.filter((_, i) => i !== headerAt);
  const extras: Extras = { labels: new Map() };
  const records = toRecords(entries, version < 2, notes, extras);
  const core = recordsToConversations(records, notes, options);
  const base = path.basename(file).replace(/\.jsonl$/, '');
  const placed = new Set<string>();
  const conversations = core.map((c, i): ImportedConversation => {
    const checkpoints: { label: string; messageId: string }[] = [];
    for (const [target, { label }] of extras.labels) {
      const messageId = label === undefined ? undefined : c.turnEndIdOf(target);
      if (label === undefined || messageId === undefined || !isValidCheckpointLabel(label))
        continue;
      checkpoints.push({ label, messageId });
      placed.add(target);
    }
    if (i > 0) notes.change(c.firstLine, 'a second root turn imported as its own conversation');
    return {
      title: i === 0 ? (extras.title ?? base) : `${extras.title ?? base} (root ${i + 1})`,
      kind: i === 0 ? 'main' : 'separate-root',
      turns: c.turns,
      tip: c.tip,
      activeBranch: c.activeBranch,
      branchPoints: c.branchPoints,
      checkpoints,
      metadata: {
        source: {
          format: 'pi',
          file: path.basename(file),
          version,
          kind: i === 0 ? 'main' : 'separate-root',
          firstLine: c.firstLine,
          ...(str(header?.id) !== undefined ? { sessionId: str(header?.id) } : {}),
        },
      },
    };
  });
  for (const [target, { label, line }] of extras.labels) {
    if (label === undefined || placed.has(target)) continue;
    notes.skip(
      line,
      isValidCheckpointLabel(label)
        ? 'label not on the end of an imported turn'
        : 'label that is not a valid checkpoint label',
      label,
    );
  }
  return fileImport(file, 'pi', conversations, notes);
};
