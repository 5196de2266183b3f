/**
 * Real session files (test/fixtures/real) → a provider-valid neutral window, for tests and the
 * bench: imported by @arbor/importers, as `arbor import` does.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Message, MessageInput } from '@arbor/domain/messages';
import { REAL_FIXTURES } from '@arbor/fixtures';
import { activeBranchTurns, importSessionFile } from '@arbor/importers';

export { REAL_FIXTURES };

export interface LoadedWindow {
  file: string;
  messages: Message[];
  skippedLines: number;
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

/**
 * A session file as `arbor import` stores it (@arbor/importers): the first conversation's active
 * branch, root → tip. Lines the importer could not keep are counted, not loaded.
 */
function loadImported(file: string, format: 'claude-code' | 'pi' | 'codex'): LoadedWindow {
  const imported = importSessionFile(file, { format });
  const turns = activeBranchTurns(imported.conversations[0]);
  const skippedLines = imported.report.skipped.length;
  return { file: path.basename(file), messages: commitTurns(turns, format), skippedLines };
}

export const loadClaudeCode = (file: string): LoadedWindow => loadImported(file, 'claude-code');
export const loadPi = (file: string): LoadedWindow => loadImported(file, 'pi');
export const loadCodex = (file: string): LoadedWindow => loadImported(file, 'codex');

/** The real Claude Code and pi fixtures as windows: claude-code/*.jsonl and pi/*.jsonl. */
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

/**
 * The real Codex rollouts (codex/*.jsonl) as windows. Kept apart from `loadRealWindows`: their
 * Responses reasoning items carry no `id`, as Codex stored them, which OpenAI's published
 * OpenAPI schema marks required (`providers/openai-openapi.spec.ts` would refuse them).
 */
export function loadCodexWindows(): LoadedWindow[] {
  const dir = path.join(REAL_FIXTURES, 'codex');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((f) => loadCodex(path.join(dir, f)));
}
