/** Builders for synthetic session files (tests only). */
export type Rec = Record<string, unknown>;

export const jsonl = (records: readonly Rec[]): string =>
  records.map((r) => JSON.stringify(r)).join('\n') + '\n';

export const text = (t: string) => ({ type: 'text', text: t });

/** A Claude Code record. */
export const cc = (
  type: string,
  uuid: string,
  parentUuid: string | null,
  message?: Rec,
  extra: Rec = {},
): Rec => ({ type, uuid, parentUuid, ...(message ? { message } : {}), ...extra });

export const ccA = (id: string, content: unknown[]) => ({ id, role: 'assistant', content });
export const ccU = (content: unknown) => ({ role: 'user', content });
export const ccCall = (id: string, name = 'ls') => ({ type: 'tool_use', id, name, input: {} });
export const ccResult = (id: string, content: unknown = 'ok') => ({
  type: 'tool_result',
  tool_use_id: id,
  content,
});

/** pi entries. */
export const piHeader = (version?: number): Rec => ({
  type: 'session',
  id: 'sess-1',
  timestamp: '2025-12-01T00:00:00.000Z',
  cwd: '/w',
  ...(version !== undefined ? { version } : {}),
});
export const piMsg = (message: Rec, link: Rec = {}): Rec => ({ type: 'message', ...link, message });
export const piUser = (t: string) => ({ role: 'user', content: [text(t)] });
export const piAssistant = (content: unknown[], extra: Rec = {}) => ({
  role: 'assistant',
  content,
  model: 'claude-x',
  usage: { input: 10, output: 5, cacheRead: 1, cacheWrite: 2 },
  stopReason: 'stop',
  ...extra,
});
export const piCall = (id: string, name = 'read') => ({
  type: 'toolCall',
  id,
  name,
  arguments: { path: 'a' },
});
export const piResult = (id: string, t = 'ok', isError = false) => ({
  role: 'toolResult',
  toolCallId: id,
  toolName: 'read',
  content: [text(t)],
  isError,
});
