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
