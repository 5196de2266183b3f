export * from './types';
export { importClaudeCode } from './claude-code/import';
export { importPi } from './pi/import';
export { importCodex } from './codex/import';
export {
  detectFormat,
  importSessionFile,
  importSessionText,
  sessionFiles,
  type ImportOptions,
} from './detect';
export { SYNTHETIC_PROMPT_ID } from './core/turns';
export { activeBranchTurns } from './branch';
