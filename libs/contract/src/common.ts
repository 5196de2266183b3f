import { z } from 'zod';
import {
  ID_PATTERN,
  ID_RULE,
  MODEL_PATTERN,
  MODEL_RULE,
  TOOL_CALL_ID_PATTERN,
  TOOL_CALL_ID_RULE,
} from '@arbor/domain';

/** Ids of conversations, messages, turns, tenants, keys and contexts. */
export const Id = z.string().regex(ID_PATTERN, ID_RULE).meta({ id: 'Id', description: ID_RULE });

/** A model name: kept in clear by the log, so a name's shape, not free text. */
export const ModelName = z
  .string()
  .regex(MODEL_PATTERN, MODEL_RULE)
  .meta({ id: 'ModelName', description: `A model name; ${MODEL_RULE}` });

/** A tool call's id (`tool_use.id`, `tool_result.tool_use_id`): an id's shape, not free text. */
export const ToolCallId = z
  .string()
  .regex(TOOL_CALL_ID_PATTERN, TOOL_CALL_ID_RULE)
  .meta({ id: 'ToolCallId', description: `A tool call id; ${TOOL_CALL_ID_RULE}` });

export const Label = z
  .string()
  .regex(/^[A-Za-z0-9_.:-]{1,128}$/, 'must be 1-128 characters of [A-Za-z0-9_.:-]')
  .meta({ description: 'A checkpoint label: 1-128 characters of [A-Za-z0-9_.:-]' });

/** An opaque page cursor: pass back the `next` of the previous page unchanged. */
export const Cursor = z
  .string()
  .max(200)
  .meta({ description: 'The `next` of the previous page, unchanged (opaque)' });

/** Decimal digits only: `0x10`, `1e3`, ` 5`, `5.0`, `+5` are refused (`Number()` takes all). */
export const decimalInt = (min: number, max: number) =>
  z
    .string()
    .regex(/^(0|[1-9][0-9]{0,15})$/, 'must be a decimal integer (digits only)')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .meta({ override: { type: 'integer', minimum: min, maximum: max } });

export const Limit = decimalInt(1, 1000).meta({ description: 'Page size (1-1000)' });

/** A page size with its route's default, as the document shows it. */
export const LimitWithDefault = (fallback: number) =>
  decimalInt(1, 1000).meta({
    description: 'Page size (1-1000)',
    override: { type: 'integer', minimum: 1, maximum: 1000, default: fallback },
  });

export const Revision = z
  .number()
  .int()
  .min(0)
  .meta({ description: 'Stream revision of the conversation (0 = its first event)' });

export const Timestamp = z.string().meta({ description: 'ISO-8601 time' });

/** Accepts anything at run time (limits live at the edge); documented as recursive JSON. */
const JSON_VALUE_REF = { $ref: '#/components/schemas/JsonValue' };
export const JsonValue = z.unknown().meta({
  id: 'JsonValue',
  description: 'Any JSON value',
  override: {
    anyOf: [
      { type: 'string' },
      { type: 'number' },
      { type: 'boolean' },
      { type: 'null' },
      { type: 'array', items: JSON_VALUE_REF },
      { type: 'object', additionalProperties: JSON_VALUE_REF },
    ],
  },
});

/** Passed through as parsed: a key-by-key rebuild drops (or, via `__proto__`, mis-assigns) keys. */
export const JsonObject = z
  .custom<Record<string, unknown>>(
    (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
    { message: 'must be an object' },
  )
  .meta({ override: { type: 'object', additionalProperties: JSON_VALUE_REF } });

/** A cursor-paginated list: `{items, next?}`; `next` is absent on the last page. */
export const page = <T extends z.ZodType>(item: T) =>
  z.object({
    items: z.array(item),
    next: Cursor.optional().meta({
      description: 'Cursor of the next page; absent on the last page',
    }),
  });

/** A list answered whole: `{items}`. */
export const list = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item) });
