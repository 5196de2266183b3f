import { z } from 'zod';
import { ID_PATTERN, ID_RULE } from '@arbor/domain';

/** Ids of conversations, messages, turns, tenants, keys and contexts. */
export const Id = z.string().regex(ID_PATTERN, ID_RULE).meta({ id: 'Id', description: ID_RULE });

export const Label = z
  .string()
  .regex(/^[A-Za-z0-9_.:-]{1,128}$/, 'must be 1-128 characters of [A-Za-z0-9_.:-]')
  .meta({ description: 'A checkpoint label: 1-128 characters of [A-Za-z0-9_.:-]' });

/** An opaque page cursor: pass back the `next` of the previous page unchanged. */
export const Cursor = z
  .string()
  .max(200)
  .meta({ description: 'The `next` of the previous page, unchanged (opaque)' });

export const Limit = z.coerce
  .number()
  .int()
  .min(1)
  .max(1000)
  .meta({ description: 'Page size (1-1000)' });

export const Revision = z
  .number()
  .int()
  .min(0)
  .meta({ description: 'Stream revision of the conversation (0 = its first event)' });

export const Timestamp = z.string().meta({ description: 'ISO-8601 time' });

/** Free-form JSON object (caller metadata, event data, provider bodies). */
export const JsonObject = z.record(z.string(), z.unknown());

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
