/** Which importer reads a file, and reading files and folders of sessions. */
import fs from 'node:fs';
import path from 'node:path';
import { importClaudeCode } from './claude-code/import';
import { importCodex, ROLLOUT_TYPES } from './codex/import';
import { importPi } from './pi/import';
import { type FileImport, type SessionFormat } from './types';

export interface ImportOptions {
  maxImageBytes?: number;
  format?: SessionFormat;
}

/** A pi `session` header, or a Codex `{type, payload}` rollout line; else Claude Code. */
export const detectFormat = (text: string): SessionFormat => {
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const v: unknown = JSON.parse(line);
      const o = typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
      if (o.type === 'session' && typeof o.id === 'string') return 'pi';
      if (typeof o.type === 'string' && ROLLOUT_TYPES.has(o.type) && 'payload' in o) return 'codex';
      return 'claude-code';
    } catch {
      return 'claude-code';
    }
  }
  return 'claude-code';
};

export const importSessionText = (
  file: string,
  text: string,
  options: ImportOptions = {},
): FileImport => {
  const format = options.format ?? detectFormat(text);
  if (format === 'pi') return importPi(file, text, options);
  if (format === 'codex') return importCodex(file, text, options);
  return importClaudeCode(file, text, options);
};

export const importSessionFile = (file: string, options: ImportOptions = {}): FileImport =>
  importSessionText(file, fs.readFileSync(file, 'utf8'), options);

export const sessionFiles = (target: string): string[] => {
  const stat = fs.statSync(target);
  if (stat.isFile()) return [target];
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs
      .readdirSync(dir, { withFileTypes: true })
      .sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && entry.name.endsWith('.jsonl')) out.push(full);
    }
  };
  walk(target);
  return out;
};
