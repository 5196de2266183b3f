import { z } from 'zod';

/**
 * A free-form JSON object (metadata, tool input schemas, …), passed through as parsed — not
 * rebuilt key by key, which would drop (or, with `__proto__`, mis-assign) keys a client sent as
 * data. Its size and depth are checked by `checkJsonField` (the one rule for free-form fields).
 */
export const JsonObject = z
  .custom<Record<string, unknown>>(
    (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
    { message: 'must be an object' },
  )
  .meta({ type: 'object', additionalProperties: true });

/**
 * A query integer written in plain decimal digits, nothing else: `0x10`, `1e3`, ` 5`, `5.0` and
 * `+5` are refused (a coercing `Number()` would take them all).
 */
export const decimalInt = (min: number, max: number) =>
  z
    .string()
    .regex(/^(0|[1-9][0-9]{0,15})$/, 'must be a decimal integer (digits only)')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .meta({ type: 'integer', minimum: min, maximum: max });
