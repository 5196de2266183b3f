/**
 * The one id rule, for every id a caller names (tenants, conversations, messages, turns,
 * failures, contexts, tool definitions): 1-128 characters of `[A-Za-z0-9_-]`. No `.`, so an id can
 * never contain the stream-name separator (`<category>-<tenant>.<id>`), and two tenants' ids can
 * never produce one stream. Everything that checks an id uses these constants.
 */
export const ID_CHARS = 'A-Za-z0-9_-';
export const ID_MAX_LENGTH = 128;
/** One id, anchored. */
export const ID_PATTERN = new RegExp(`^[${ID_CHARS}]{1,${ID_MAX_LENGTH}}$`);
/** One id inside a larger pattern (no anchors, no groups). */
export const ID_SOURCE = `[${ID_CHARS}]{1,${ID_MAX_LENGTH}}`;
/** How a broken id is explained. */
export const ID_RULE = `must be 1-${ID_MAX_LENGTH} characters of [${ID_CHARS}]`;

export const isId = (value: unknown): value is string =>
  typeof value === 'string' && ID_PATTERN.test(value);

/**
 * Names the log keeps in clear, so bounded to what a name is (no spaces, no free text): a model
 * name as providers write them (`claude-sonnet-4-5`, `models/gemini-2.5-pro`,
 * `anthropic.claude-3-haiku-20240307-v1:0`, Claude Code's `<synthetic>`), 1-200 characters.
 */
export const MODEL_PATTERN = /^[A-Za-z0-9_.:@/+<>=-]{1,200}$/;
export const MODEL_RULE = 'must be a model name: 1-200 characters of [A-Za-z0-9_.:@/+<>=-]';

/**
 * A tool call's id (`tool_use.id`, `tool_result.tool_use_id`), recorded in clear by the elision
 * decisions: as providers and harnesses write them (`toolu_…`, `call_…`, `call_…|fc_…`,
 * `functions.Bash:0`), 1-256 characters, no spaces.
 */
export const TOOL_CALL_ID_PATTERN = /^[A-Za-z0-9_.:|@/+=-]{1,256}$/;
export const TOOL_CALL_ID_RULE = 'must be a tool call id: 1-256 characters of [A-Za-z0-9_.:|@/+=-]';
