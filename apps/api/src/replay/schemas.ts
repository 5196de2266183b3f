import { z } from 'zod';
import { decimalInt } from '../validation/json';

const Revision = z
  .string({
    error: (issue) => (issue.input === undefined ? 'required' : 'must be a non-negative integer'),
  })
  .regex(/^(0|[1-9][0-9]{0,14})$/, 'must be a non-negative integer (a stream revision)');

/** `?revision=N` is required; `cursor`/`limit` page the active branch of the answer. */
export const ReplayQuery = z.strictObject({
  revision: Revision,
  cursor: z.string().max(200).optional(),
  limit: decimalInt(1, 1000).optional(),
});

export const ContextsQuery = z.strictObject({
  fromRevision: Revision.optional(),
  cursor: z.string().max(200).optional(),
  limit: decimalInt(1, 1000).optional(),
});
