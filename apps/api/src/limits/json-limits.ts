import { Problem } from '../problem/problem';

/** The rule every free-form JSON field obeys (metadata, failures, tool inputs and schemas, …). */
export interface JsonFieldLimits {
  /** Deepest nesting of objects/arrays inside the field (the field itself is level 1). */
  maxDepth: number;
  /** Largest JSON text of the field, in UTF-8 bytes. */
  maxBytes: number;
}

/**
 * Levels a request body adds above its deepest free-form field
 * (`body.messages[i].content[j].input` is 5; a margin on top). The body parser refuses anything
 * deeper than `maxDepth + BODY_ENVELOPE_DEPTH` before `JSON.parse` runs.
 */
export const BODY_ENVELOPE_DEPTH = 8;

/**
 * How deep `value` nests (a scalar is 0, `{}` is 1), stopping as soon as it passes `stopAt`.
 * Iterative (an explicit stack), so no call-stack depth decides the answer.
 */
export const jsonDepth = (value: unknown, stopAt = Number.POSITIVE_INFINITY): number => {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== 'object') continue;
    if (depth > deepest) {
      deepest = depth;
      if (deepest > stopAt) return deepest;
    }
    for (const child of Object.values(v)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return deepest;
};

/**
 * The nesting depth of a JSON text, from its bytes, without parsing it: counts `[`/`{` outside
 * strings. Stops at the first byte past `max` and returns its offset (or -1 when within bounds).
 */
export const rawJsonDepthExceeds = (bytes: Uint8Array, max: number): number => {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (inString) {
      if (b === 0x5c) i++;
      else if (b === 0x22) inString = false;
    } else if (b === 0x22) inString = true;
    else if (b === 0x7b || b === 0x5b) {
      if (++depth > max) return i;
    } else if (b === 0x7d || b === 0x5d) depth--;
  }
  return -1;
};

/** Refuses a free-form field deeper or larger than the limits, naming its path. */
export const checkJsonField = (value: unknown, path: string, limits: JsonFieldLimits): void => {
  if (value === undefined) return;
  const depth = jsonDepth(value, limits.maxDepth);
  if (depth > limits.maxDepth) {
    const message = `nests deeper than ${limits.maxDepth} levels`;
    throw new Problem('json_too_deep', `${path}: ${message}`, {
      errors: [{ path, code: 'too_deep', message }],
      maxDepth: limits.maxDepth,
    });
  }
  // Depth is bounded now, so the (recursive) serializer is safe to run.
  const bytes = Buffer.byteLength(JSON.stringify(value) ?? '');
  if (bytes > limits.maxBytes) {
    const message = `is ${bytes} bytes of JSON, more than ${limits.maxBytes}`;
    throw new Problem('field_too_large', `${path}: ${message}`, {
      errors: [{ path, code: 'too_large', message }],
      maxBytes: limits.maxBytes,
    });
  }
};

/** Several fields of one request, each against the same rule. */
export const checkJsonFields = (
  fields: Iterable<readonly [string, unknown]>,
  limits: JsonFieldLimits,
): void => {
  for (const [path, value] of fields) checkJsonField(value, path, limits);
};
