/** Request bodies and query strings of every route: the validation the controllers run. */
import { z } from 'zod';
import { PROVIDER_NAMES, type ProviderName } from '@arbor/context/types';
import { SNAPSHOT_SHAPES } from '@arbor/context/ladder/capabilities';
import { toolNameProblem } from '@arbor/context/providers/tool-ids';
import { ID_PATTERN } from '@arbor/domain';
import {
  Cursor,
  decimalInt,
  Id,
  JsonObject,
  JsonValue,
  Label,
  Limit,
  LimitWithDefault,
  ModelName,
} from './common';
import { MessageInputSchema } from './messages';

const Title = z.string().max(500).nullable();

export const StartConversationBody = z
  .strictObject({
    id: Id.optional().meta({ description: 'Default: a fresh id' }),
    title: Title.optional(),
    metadata: JsonObject.optional(),
  })
  .meta({ id: 'StartConversationBody' });

/** `PUT /v1/conversations/{id}`: the id is in the path. */
export const EnsureConversationBody = z
  .strictObject({
    title: Title.optional(),
    metadata: JsonObject.optional(),
  })
  .meta({ id: 'EnsureConversationBody' });

export const CommitTurnBody = z
  .strictObject({
    turnId: Id.optional().meta({
      description: 'Makes retries idempotent: the same turnId with the same messages answers 200',
    }),
    parentId: Id.nullable()
      .optional()
      .meta({
        description:
          'The message the turn chains from (an earlier one starts a new branch); null = a root; ' +
          'absent = the current tip',
      }),
    expectedTip: Id.nullable()
      .optional()
      .meta({ description: 'Refuse with 409 stale_tip unless this is the tip' }),
    messages: z.array(MessageInputSchema).min(1).max(1000),
  })
  .meta({ id: 'CommitTurnBody' });

export const SaveDraftBody = z
  .strictObject({
    parentId: Id.nullable().meta({
      description: 'Where the turn will hang: the end of a turn, or null on an empty conversation',
    }),
    messages: z.array(MessageInputSchema).min(1).max(1000),
    draftId: Id.optional(),
  })
  .meta({ id: 'SaveDraftBody' });

export const CommitDraftBody = z
  .strictObject({
    turnId: Id.optional(),
    expectedTip: Id.nullable().optional(),
    messages: z
      .array(MessageInputSchema)
      .max(1000)
      .default([])
      .meta({ description: 'The rest of the turn after the draft (tool results, the answer)' }),
  })
  .meta({ id: 'CommitDraftBody' });

/** Longest custom instruction for a branch summary. */
export const MAX_BRANCH_SUMMARY_INSTRUCTION = 4000;

export const MoveTipBody = z
  .strictObject({
    messageId: Id.nullable().meta({
      description:
        'The message the tip moves to; `null`: no tip — the active branch is empty (every ' +
        'message stays in the tree; move the tip back to reach it again) and the next turn ' +
        'commits with `parentId: null` as a new root.',
    }),
    expectedTip: Id.nullable().optional(),
    summarize: z
      .union([
        z.boolean(),
        z.strictObject({ instruction: z.string().max(MAX_BRANCH_SUMMARY_INSTRUCTION) }),
      ])
      .optional()
      .meta({
        description:
          'Summarize the path this move leaves (common ancestor of the old and new tip, ' +
          'exclusive, to the old tip) with the configured summarizer, and record it ' +
          '(`BranchSummarized`, with the `TipMoved`): later contexts on the new branch carry it ' +
          'right after the branch point. `{instruction}` adds to what the summarizer is asked. ' +
          'No summarizer: 422 summarizer_not_configured; a summarizer failure: 502 ' +
          'summarizer_failed; moving down the current path: 422 nothing_to_summarize. In each ' +
          'case the tip does not move. Not with `messageId: null` (no branch to carry it).',
      }),
  })
  .refine((b) => b.messageId !== null || b.summarize === undefined || b.summarize === false, {
    path: ['summarize'],
    message: 'summarize needs a message to move to: with messageId null no branch carries it',
  })
  .meta({ id: 'MoveTipBody' });

export const ForkBody = z
  .strictObject({
    id: Id.optional().meta({
      description:
        'Id of the new conversation. Sending the same id again returns the same fork (same id and ' +
        'idMap, nothing written twice); the same id for a different message is 409 ' +
        'conversation_exists. Without it the id is derived from the request and the source ' +
        'revision, so a retry after a failed request also lands on the same fork.',
    }),
    messageId: Id.optional().meta({ description: 'Default: the tip' }),
    title: Title.optional(),
    metadata: JsonObject.optional(),
  })
  .meta({ id: 'ForkBody' });

export const SetCheckpointBody = z
  .strictObject({
    label: Label,
    messageId: Id.optional().meta({ description: 'Default: the tip' }),
    replace: z.boolean().optional(),
  })
  .meta({ id: 'SetCheckpointBody' });

export const RewindBody = z
  .strictObject({
    digest: z.string().max(100_000).nullable().optional(),
    expectedTip: Id.nullable().optional(),
  })
  .meta({ id: 'RewindBody' });

export const ResumeBody = z
  .strictObject({
    keepMessages: z.number().int().min(1).max(1_000_000).optional(),
    keepTokens: z.number().int().min(1).max(100_000_000).optional(),
  })
  .refine((b) => b.keepMessages !== undefined || b.keepTokens !== undefined, {
    message: 'give keepMessages, keepTokens or both',
  })
  .meta({ id: 'ResumeBody', description: 'Give keepMessages, keepTokens or both' });

const present = (v: unknown) => v !== undefined;

export const FailureBody = z
  .strictObject({
    input: JsonValue.refine(present, 'required').meta({
      description: 'The input of the failed turn (any JSON)',
    }),
    error: JsonValue.refine(present, 'required').meta({
      description: 'What went wrong (any JSON)',
    }),
  })
  .meta({
    id: 'FailureBody',
    override: { required: ['input', 'error'] },
  });

export const PageQuery = z.strictObject({
  cursor: Cursor.optional(),
  limit: Limit.optional(),
});

/** `GET /v1/conversations` pages 50 by default, the other lists 100. */
export const ConversationsQuery = z
  .strictObject({
    // A cursor of a title-sorted list carries the last title (up to 500 characters).
    cursor: z
      .string()
      .max(2100)
      .optional()
      .meta({ description: 'The `next` of the previous page, unchanged (opaque)' }),
    limit: LimitWithDefault(50).optional(),
    q: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .meta({
        description:
          'Only conversations whose title starts with this (exact and case-sensitive, UTF-8 ' +
          'byte order); answered by the title index, so it goes with `sort=title` (the default ' +
          'when `q` is given)',
      }),
    sort: z
      .enum(['created', 'lastActivity', 'title'])
      .optional()
      .meta({
        description:
          'The order: creation (default), last activity (the last event), or title (untitled ' +
          'as ""); ties by creation. Keyset pages: a cursor continues after the last item of ' +
          'its page under the same sort, order and `q`, so an item is never listed twice or ' +
          'skipped unless it changed meanwhile (new activity moves a conversation)',
      }),
    order: z
      .enum(['asc', 'desc'])
      .optional()
      .meta({ description: 'Ascending (default) or descending' }),
  })
  .refine((q) => q.q === undefined || q.sort === undefined || q.sort === 'title', {
    message: 'q (a title prefix) goes with sort=title',
    path: ['q'],
  });

export const BranchQuery = z
  .strictObject({
    cursor: Cursor.optional(),
    limit: LimitWithDefault(100).optional(),
    last: Limit.optional().meta({
      description:
        'The last N messages of the branch (its tail up to the tip), still root → tip; ' +
        'one page, without `cursor` or `limit`',
    }),
  })
  .refine((q) => q.last === undefined || (q.cursor === undefined && q.limit === undefined), {
    message: '`last` takes no `cursor` or `limit`',
    path: ['last'],
  });

export const EventsQuery = z.strictObject({
  fromRevision: decimalInt(0, Number.MAX_SAFE_INTEGER).optional(),
  cursor: Cursor.optional(),
  limit: LimitWithDefault(100).optional(),
});

export const ExportQuery = z.strictObject({
  format: z.enum(['jsonl', 'markdown', 'claude-code', 'pi']).default('jsonl'),
  scope: z
    .enum(['tree', 'branch'])
    .optional()
    .meta({ description: 'Default: branch for markdown, tree otherwise' }),
});

const RevisionParam = z
  .string({
    error: (issue) => (issue.input === undefined ? 'required' : 'must be a non-negative integer'),
  })
  .regex(/^(0|[1-9][0-9]{0,14})$/, 'must be a non-negative integer (a stream revision)');

/** `?revision=N` is required; `cursor`/`limit` page the active branch of the answer. */
export const ReplayQuery = z.strictObject({
  revision: RevisionParam,
  cursor: Cursor.optional(),
  limit: LimitWithDefault(100).optional(),
});

export const ContextsQuery = z.strictObject({
  fromRevision: RevisionParam.optional(),
  cursor: Cursor.optional(),
  limit: LimitWithDefault(100).optional(),
});

/* ---- context capabilities and settings ---- */

const TOKENS = z.number().int().min(0).max(10_000_000);
const COUNT = z.number().int().min(0).max(1000);

/** `snapshotShape` is checked after parsing, so an unknown id answers `unknown_snapshot_shape`. */
export const CapabilityOverridesSchema = z
  .strictObject({
    vision: z
      .boolean()
      .optional()
      .describe('The model reads images; false skips the snapshot rung'),
    snapshotShape: z
      .string()
      .min(1)
      .max(64)
      .nullable()
      .optional()
      .describe(
        `Snapshot page shape: one of ${Object.keys(SNAPSHOT_SHAPES).join(', ')}; null = none`,
      ),
    protectTokens: TOKENS.optional().describe('Elision never touches the newest this-many tokens'),
    minElisionSavings: TOKENS.optional().describe(
      'Elision acts only when it saves this many tokens',
    ),
    keepImages: COUNT.optional().describe('Image stripping keeps this many most recent images'),
    maxSnapshotPages: COUNT.optional().describe('At most this many snapshot pages in one request'),
  })
  .meta({ id: 'CapabilityOverrides' });

/** Model-name prefixes (stored lowercase; the default table's are lowercase too). */
const Prefix = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._:@+-]{0,199}$/,
    'a model-name prefix: 1-200 characters of [A-Za-z0-9._:@+-], starting with a letter or digit',
  );

export const ContextSettingsBody = z
  .strictObject({
    models: z
      .record(Prefix, CapabilityOverridesSchema)
      .refine((m) => Object.keys(m).length <= 256, 'at most 256 model prefixes')
      .describe(
        'Capability overrides by model-name prefix (case-insensitive); the longest prefix ' +
          'matching the model wins, one rule per model, fields it leaves out keep the default table',
      ),
  })
  .meta({ id: 'ContextSettingsBody' });

const Bool = z.enum(['true', 'false']).transform((v) => v === 'true');
const QueryInt = (schema: z.ZodNumber) =>
  z
    .string()
    .regex(/^\d{1,8}$/, 'a non-negative integer')
    .transform(Number)
    .pipe(schema);

/** The same overrides as query parameters (`GET …/context/report`). */
export const CapabilityQueryFields = {
  vision: Bool.optional(),
  snapshotShape: z
    .string()
    .min(1)
    .max(64)
    .transform((v) => (v === 'none' ? null : v))
    .optional()
    .meta({ description: 'A snapshot page shape id, or `none`' }),
  protectTokens: QueryInt(TOKENS).optional(),
  minElisionSavings: QueryInt(TOKENS).optional(),
  keepImages: QueryInt(COUNT).optional(),
  maxSnapshotPages: QueryInt(COUNT).optional(),
};

export const PROVIDERS = PROVIDER_NAMES as [ProviderName, ...ProviderName[]];
export const ProviderSchema = z.enum(PROVIDERS).meta({ id: 'Provider' });

// Providers take object schemas only (Anthropic answers 400 for any other `type`); a schema
// without `type` is sent as an object schema.
const ObjectSchema = JsonObject.refine(
  (schema) => schema.type === undefined || schema.type === 'object',
  { message: 'must be an object schema ("type": "object", or absent)' },
);
const ToolName = z.string().regex(ID_PATTERN);
const ToolDescription = z.string().max(100_000).optional();
const Strict = z
  .boolean()
  .optional()
  .meta({ description: 'Accepted for the shape; the neutral definition has no strict mode' });

/** The neutral (Anthropic-shaped) definition every provider encoder takes. */
const NeutralTool = z
  .strictObject({
    name: ToolName,
    description: ToolDescription,
    input_schema: ObjectSchema.meta({
      description: 'JSON Schema of the input (an object schema), passed through',
    }),
  })
  .meta({ id: 'ToolDefinition' });

/** OpenAI Chat Completions: `{type: "function", function: {name, description, parameters}}`. */
const ChatFunctionTool = z
  .strictObject({
    type: z.literal('function'),
    function: z.strictObject({
      name: ToolName,
      description: ToolDescription,
      parameters: ObjectSchema.optional(),
      strict: Strict,
    }),
  })
  .meta({ id: 'ChatFunctionToolDefinition' });

/** OpenAI Responses: `{type: "function", name, description, parameters}`. */
const ResponsesFunctionTool = z
  .strictObject({
    type: z.literal('function'),
    name: ToolName,
    description: ToolDescription,
    parameters: ObjectSchema.optional(),
    strict: Strict,
  })
  .meta({ id: 'ResponsesFunctionToolDefinition' });

type NeutralToolOut = z.infer<typeof NeutralTool>;
const neutral = (
  name: string,
  description: string | undefined,
  parameters: NeutralToolOut['input_schema'] | undefined,
): NeutralToolOut => ({
  name,
  ...(description !== undefined ? { description } : {}),
  input_schema: parameters ?? { type: 'object', properties: {} },
});

/** A tool definition in any provider's shape, read into the neutral (Anthropic) definition. */
const Tool = z
  .union([NeutralTool, ChatFunctionTool, ResponsesFunctionTool])
  .transform((t): NeutralToolOut => {
    if ('input_schema' in t) return t;
    if ('function' in t)
      return neutral(t.function.name, t.function.description, t.function.parameters);
    return neutral(t.name, t.description, t.parameters);
  });

/** Either the provider's measured numbers, or its raw "too long" error text (parsed). */
const Overflow = z.union([
  z.strictObject({
    measuredTokens: z.number().int().positive(),
    limitTokens: z.number().int().positive(),
  }),
  z.strictObject({ error: z.string().min(1).max(100_000) }),
]);

export const ContextBody = z
  .strictObject({
    provider: ProviderSchema,
    model: ModelName,
    budgetTokens: z.number().int().min(256).max(10_000_000),
    system: z.string().max(1_000_000).optional(),
    tools: z.array(Tool).max(512).optional(),
    append: z
      .array(MessageInputSchema)
      .min(1)
      .max(1000)
      .optional()
      .describe(
        'Messages after the tip for this call only: the next user message (or a partial turn a ' +
          'model loop has not committed yet). They go at the end of the body, count in the ' +
          'budget and are never compacted; they are not stored as history (the receipt keeps ' +
          'them so the context can be reproduced). Ids are optional and must be new',
      ),
    maxTokens: z.number().int().min(1).max(1_000_000).optional(),
    overflow: Overflow.optional().meta({
      description:
        'The provider refused the last request as too long: its numbers, or its raw error text',
    }),
    mode: z.enum(['auto', 'shake', 'snapshot', 'compact']).default('auto'),
    allowDrop: z
      .boolean()
      .optional()
      .describe(
        'Default true: when nothing else fits, the last rung leaves the oldest part of the ' +
          'middle out (recorded, and said in the receipt). false: `422 cannot_fit` instead',
      ),
    capabilities: CapabilityOverridesSchema.optional().describe(
      "This request's capability overrides: field by field over the tenant's context settings " +
        '(`PUT /v1/settings/context`), which are over the default table',
    ),
    cache: z
      .boolean()
      .optional()
      .describe(
        'Default true: prompt-cache hints in the body (Anthropic `cache_control` breakpoints, ' +
          'OpenAI `prompt_cache_key`), described in `receipt.cache`. false: none',
      ),
  })
  // Definition names are not mapped (the model answers with them, the harness dispatches on
  // them): one the provider would refuse is refused here, with its path.
  .superRefine((body, ctx) => {
    (body.tools ?? []).forEach((tool, i) => {
      // A tool that failed its own schema reaches here unread (zod runs the refinement on
      // the rest): its error is reported already.
      if (typeof tool.name !== 'string') return;
      const problem = toolNameProblem(body.provider, tool.name);
      if (problem !== null) {
        ctx.addIssue({ code: 'custom', path: ['tools', i, 'name'], message: problem });
      }
    });
  })
  .meta({ id: 'ContextBody' });

export const RevokeCompactionBody = z
  .strictObject({
    reason: z.string().max(2_000).optional().describe('Why, for the audit log'),
  })
  .meta({ id: 'RevokeCompactionBody' });

export const ReportQuery = z.strictObject({
  provider: ProviderSchema.default('anthropic'),
  model: z.string().min(1).max(200).default('claude-sonnet-4-5'),
  ...CapabilityQueryFields,
});

/* ---- tenants (admin) ---- */

export const CreateTenantBody = z
  .strictObject({ name: z.string().min(1).max(200).optional() })
  .meta({ id: 'CreateTenantBody' });

export const IssueKeyBody = z
  .strictObject({ label: z.string().min(1).max(200).optional() })
  .meta({ id: 'IssueKeyBody' });

/* ---- erasure and retention ---- */

const Reason = z.string().min(1).max(500);

export const EraseConversationQuery = z.strictObject({
  reason: Reason.optional().describe(
    'Why (recorded in `ConversationErased`, in clear: put no personal data in it). ' +
      'May be given in the body instead; default `erasure requested`.',
  ),
  forks: z
    .enum(['keep', 'erase'])
    .default('keep')
    .describe(
      '`keep` (default): forks are separate conversations with keys of their own and stay as ' +
        'they are, including the messages they copied; `erase`: the forks, their forks, … go too.',
    ),
});

export const EraseBody = z
  .strictObject({ reason: Reason.optional().describe('Why, recorded in the erasure event') })
  .meta({ id: 'EraseBody' });

export const EraseTenantQuery = z.strictObject({
  reason: Reason.optional().describe(
    'Why (recorded on the tenant stream); default `tenant erased`',
  ),
});

export const RetentionBody = z
  .strictObject({
    retentionDays: z
      .number()
      .int()
      .min(1)
      .max(36_500)
      .nullable()
      .describe('Erase conversations idle (no event) longer than this many days; null: keep'),
  })
  .meta({ id: 'RetentionBody' });
/** A tenant's token bucket, set by the admin: sustained requests per second and burst size. */
export const RateLimitSchema = z
  .strictObject({
    ratePerSecond: z.number().positive().max(1_000_000),
    burst: z.number().int().min(1).max(1_000_000),
  })
  .meta({ id: 'RateLimit' });

export const RateLimitBody = z
  .strictObject({
    limit: RateLimitSchema.nullable().meta({
      description: "The tenant's own limit; null: the service default (ARBOR_RATE_LIMIT_*)",
    }),
  })
  .meta({ id: 'RateLimitBody' });
