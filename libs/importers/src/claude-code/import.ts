/** Claude Code session files → conversations (the format's rules: README.md). */
import path from 'node:path';
import { type Usage } from '@arbor/domain';
import { usageOf } from '../core/blocks';
import { createNotes, type Notes } from '../core/notes';
import { recordsToConversations } from '../core/pipeline';
import { fileImport } from '../core/report';
import { type CoreConversation } from '../core/turns';
import { type JsonLine, obj, readJsonLines, str } from '../jsonl';
import {
  type ConversationKind,
  type FileImport,
  type ImportedConversation,
  type SourceRecord,
} from '../types';
import { claudeCodeItems } from './blocks';

export interface ImportOptions {
  maxImageBytes?: number;
}

const ccUsage = (u: unknown): Usage | undefined => {
  const x = obj(u);
  if (x === undefined) return undefined;
  return usageOf([
    ['input_tokens', x.input_tokens],
    ['output_tokens', x.output_tokens],
    ['cache_read_input_tokens', x.cache_read_input_tokens],
    ['cache_creation_input_tokens', x.cache_creation_input_tokens],
  ]);
};

const toRecord = (
  { line, value: v }: JsonLine,
  uuids: Set<string>,
  notes: Notes,
): SourceRecord | null => {
  const type = String(v.type);
  const uuid = str(v.uuid);
  if (uuid === undefined) {
    notes.skip(line, `${type} record without uuid`);
    return null;
  }
  let parentId = str(v.parentUuid) ?? null;
  const logical = str(v.logicalParentUuid);
  if (v.subtype === 'compact_boundary' && parentId === null && logical !== undefined) {
    parentId = logical;
    if (uuids.has(logical))
      notes.change(
        line,
        'compact_boundary: the chain continues through logicalParentUuid',
        logical,
      );
  }
  const base = { line, id: uuid, parentId, ...(v.isSidechain === true ? { sidechain: true } : {}) };
  if (type !== 'user' && type !== 'assistant') return base;
  const m = obj(v.message);
  if (m === undefined || (m.role !== 'user' && m.role !== 'assistant')) {
    notes.skip(line, `${type} record without a message`);
    return base;
  }
  const role = m.role;
  const usage = role === 'assistant' ? ccUsage(m.usage) : undefined;
  const model = role === 'assistant' ? str(m.model) : undefined;
  return {
    ...base,
    message: {
      role,
      items: claudeCodeItems(m.content, line, notes),
      ...(role === 'assistant' && str(m.id) !== undefined ? { apiId: str(m.id) } : {}),
      ...(model !== undefined ? { model } : {}),
      ...(usage !== undefined ? { usage } : {}),
      ...(str(v.timestamp) !== undefined ? { timestamp: str(v.timestamp) } : {}),
    },
  };
};

const kinds = (core: CoreConversation[]): ConversationKind[] => {
  let mainSeen = false;
  return core.map((c) => {
    if (c.sidechain) return 'sidechain';
    if (mainSeen) return 'separate-root';
    mainSeen = true;
    return 'main';
  });
};

export const importClaudeCode = (
  file: string,
  text: string,
  options: ImportOptions = {},
): FileImport => {
  const notes = createNotes();
  const lines = readJsonLines(text, notes.skipped);
  const uuids = new Set(
    lines.flatMap((l) => (str(l.value.uuid) ? [str(l.value.uuid) as string] : [])),
  );
  const titles: string[] = [];
  const records: SourceRecord[] = [];
  const byLine = new Map<number, Record<string, unknown>>();
  for (const l of lines) {
    byLine.set(l.line, l.value);
    if (l.value.type === 'summary') {
      const leaf = str(l.value.leafUuid);
      if (leaf !== undefined && uuids.has(leaf) && typeof l.value.summary === 'string')
        titles.push(l.value.summary);
      else notes.skip(l.line, 'summary whose leafUuid points to no record of this file');
      continue;
    }
    const r = toRecord(l, uuids, notes);
    if (r !== null) records.push(r);
  }
  const core = recordsToConversations(records, notes, options);
  const base = path.basename(file).replace(/\.jsonl$/, '');
  const kindList = kinds(core);
  const hasMain = kindList.includes('main');
  const conversations: ImportedConversation[] = core.map((c, i): ImportedConversation => {
    const first = byLine.get(c.firstLine) ?? {};
    const agentId = str(first.agentId);
    const kind = kindList[i];
    if (kind === 'sidechain' && hasMain)
      notes.change(c.firstLine, 'sidechain (subagent) records imported as their own conversation');
    if (kind === 'separate-root')
      notes.change(c.firstLine, 'a second root turn imported as its own conversation');
    const title =
      kind === 'main'
        ? (titles[titles.length - 1] ?? base)
        : kind === 'sidechain'
          ? hasMain || core.length > 1
            ? `${base} (subagent ${agentId ?? i})`
            : base
          : `${base} (root ${i + 1})`;
    return {
      title,
      kind,
      turns: c.turns,
      tip: c.tip,
      activeBranch: c.activeBranch,
      branchPoints: c.branchPoints,
      checkpoints: [],
      metadata: {
        source: {
          format: 'claude-code',
          file: path.basename(file),
          kind,
          firstLine: c.firstLine,
          ...(str(first.sessionId) !== undefined ? { sessionId: str(first.sessionId) } : {}),
          ...(agentId !== undefined ? { agentId } : {}),
        },
      },
    };
  });
  return fileImport(file, 'claude-code', conversations, notes);
};
