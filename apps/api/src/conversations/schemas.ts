import { z } from 'zod';
import { decimalInt, JsonObject } from '../validation/json';

/** Request schemas: one source for validation and for the OpenAPI document. */
export const Id = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,128}$/, 'must be 1-128 characters of [A-Za-z0-9_-]');

export const StartConversationBody = z.strictObject({
  id: Id.optional(),
  title: z.string().max(500).nullable().optional(),
  metadata: JsonObject.optional(),
});

/** `messages` is validated by the domain parser (precise block paths); here only its presence. */
export const CommitTurnBody = z.strictObject({
  turnId: Id.optional(),
  parentId: Id.nullable().optional(),
  expectedTip: Id.nullable().optional(),
  messages: z.array(z.unknown()).min(1).max(1000),
});

export const MoveTipBody = z.strictObject({
  messageId: Id,
  expectedTip: Id.nullable().optional(),
});

export const ForkBody = z.strictObject({
  id: Id.optional().describe(
    'Id of the new conversation. Sending the same id again returns the same fork (same id and ' +
      'idMap, nothing written twice); the same id for a different message is 409 ' +
      'conversation_exists. Without it the id is derived from the request and the source ' +
      'revision, so a retry after a failed request also lands on the same fork.',
  ),
  messageId: Id.optional(),
  title: z.string().max(500).nullable().optional(),
  metadata: JsonObject.optional(),
});

export const Label = z
  .string()
  .regex(/^[A-Za-z0-9_.:-]{1,128}$/, 'must be 1-128 characters of [A-Za-z0-9_.:-]');

export const SetCheckpointBody = z.strictObject({
  label: Label,
  messageId: Id.optional(),
  replace: z.boolean().optional(),
});

export const RewindBody = z.strictObject({
  digest: z.string().max(100_000).nullable().optional(),
  expectedTip: Id.nullable().optional(),
});

export const ResumeBody = z
  .strictObject({
    keepMessages: z.number().int().min(1).max(1_000_000).optional(),
    keepTokens: z.number().int().min(1).max(100_000_000).optional(),
  })
  .refine((b) => b.keepMessages !== undefined || b.keepTokens !== undefined, {
    message: 'give keepMessages, keepTokens or both',
  });

export const FailureBody = z.strictObject({
  input: z.unknown().refine((v) => v !== undefined, 'required'),
  error: z.unknown().refine((v) => v !== undefined, 'required'),
});

export const PageQuery = z.strictObject({
  cursor: z.string().max(200).optional(),
  limit: decimalInt(1, 1000).optional(),
});

export const EventsQuery = z.strictObject({
  fromRevision: decimalInt(0, Number.MAX_SAFE_INTEGER).optional(),
  cursor: z.string().max(200).optional(),
  limit: decimalInt(1, 1000).optional(),
});

export const ExportQuery = z.strictObject({
  format: z.enum(['jsonl', 'markdown']).default('jsonl'),
  scope: z.enum(['tree', 'branch']).optional(),
});
