import { exportClaudeCode } from './claude-code';
import { exportPi } from './pi';
import { type ExportFormat, type ExportResult, type ExportSource } from './types';

export * from './types';
export { exportClaudeCode, type ClaudeCodeExportOptions } from './claude-code';
export { exportPi, type PiExportOptions } from './pi';
export { orderTree } from './order';
export { PLACEHOLDER_REASON, PLACEHOLDER_TEXT } from './common';
export { exportSource, lostSummary, reportHeader, type CheckpointLike } from './source';

export const EXPORT_FORMATS: readonly ExportFormat[] = ['claude-code', 'pi'];

/** The session file of `format` for a conversation, and what the format could not carry. */
export const exportSession = (format: ExportFormat, source: ExportSource): ExportResult =>
  format === 'pi' ? exportPi(source) : exportClaudeCode(source);
