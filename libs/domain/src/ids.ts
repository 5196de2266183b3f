/** No `.`: an id cannot hold the stream-name separator, so tenants never share a stream. */
export const ID_CHARS = 'A-Za-z0-9_-';
export const ID_MAX_LENGTH = 128;
export const ID_PATTERN = new RegExp(`^[${ID_CHARS}]{1,${ID_MAX_LENGTH}}$`);
export const ID_SOURCE = `[${ID_CHARS}]{1,${ID_MAX_LENGTH}}`;
export const ID_RULE = `must be 1-${ID_MAX_LENGTH} characters of [${ID_CHARS}]`;

export const isId = (value: unknown): value is string =>
  typeof value === 'string' && ID_PATTERN.test(value);

/** Names the log keeps in clear: bounded to what a model name is, no free text. */
export const MODEL_PATTERN = /^[A-Za-z0-9_.:@/+<>=-]{1,200}$/;
export const MODEL_RULE = 'must be a model name: 1-200 characters of [A-Za-z0-9_.:@/+<>=-]';

/** Recorded in clear by elision decisions: an id's shape (`toolu_…`, `call_…|fc_…`). */
export const TOOL_CALL_ID_PATTERN = /^[A-Za-z0-9_.:|@/+=-]{1,256}$/;
export const TOOL_CALL_ID_RULE = 'must be a tool call id: 1-256 characters of [A-Za-z0-9_.:|@/+=-]';
