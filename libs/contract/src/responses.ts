/** Every 2xx answer body of the HTTP API. Objects are closed: a field the server adds is a contract change. */
import { z } from 'zod';
import { type CompactionTrigger, type Rung, RUNGS } from '@arbor/domain';
import { Id, JsonObject, JsonValue, list, page, Revision, Timestamp } from './common';
import { BranchMessageSchema, MessageInputSchema, RoleSchema } from './messages';
import { ProblemSchema } from './problems';
import { CapabilityOverridesSchema, ProviderSchema, RateLimitSchema } from './requests';

const TRIGGER_SET: Record<CompactionTrigger, true> = {
  threshold: true,
  overflow: true,
  shake: true,
  snapshot: true,
  compact: true,
  image_limits: true,
};
const Trigger = z.enum(Object.keys(TRIGGER_SET) as [CompactionTrigger, ...CompactionTrigger[]]);
const RungSchema = z.enum(RUNGS as [Rung, ...Rung[]]).meta({ id: 'Rung' });
const Mode = z.enum(['auto', 'shake', 'snapshot', 'compact']);
const Int = z.number().int();
const Tip = Id.nullable().meta({ description: 'The tip message id; null while empty' });

/* ---- conversations ---- */

export const StartedAnswerSchema = z
  .object({ id: Id, tip: Tip, revision: Revision })
  .meta({ id: 'StartedAnswer' });

const MessageRef = z.object({ conversationId: Id, messageId: Id });

export const ConversationSchema = z
  .object({
    id: Id,
    title: z.string().nullable(),
    tip: Tip,
    revision: Revision,
    lineage: z.object({
      forkedFrom: MessageRef.nullable().meta({
        description: 'The conversation and message this one was forked from; null for an original',
      }),
      forks: z.array(MessageRef).meta({ description: 'Forks made from this conversation' }),
    }),
    counts: z.object({ messages: Int, turns: Int }),
    metadata: JsonObject.nullable(),
    cutAt: Id.nullable().meta({ description: 'First message of the live window after a resume' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'Conversation' });

export const ConversationPage = page(ConversationSchema).meta({ id: 'ConversationPage' });

export const TurnAnswerSchema = z
  .object({
    turnId: Id,
    messageIds: z.array(Id),
    tip: Id,
    revision: Revision,
    replayed: z.boolean().meta({
      description: 'True (status 200) when this turnId was committed before with the same messages',
    }),
  })
  .meta({ id: 'TurnAnswer' });

export const TipAnswerSchema = z
  .object({
    tip: Id,
    revision: Revision,
  })
  .meta({ id: 'TipAnswer' });

export const MoveTipAnswerSchema = z
  .object({
    tip: Id.nullable().meta({ description: '`null`: no tip (the active branch is empty)' }),
    revision: Revision,
    branchSummary: z
      .object({
        summaryId: z.string(),
        ancestorId: Id.meta({ description: 'The branch point' }),
        fromTip: Id.meta({ description: 'The tip that was left' }),
        abandonedIds: z.array(Id).meta({ description: 'The path summarized, root → old tip' }),
        tokens: Int.meta({ description: 'Local token count of the summary text' }),
        summarizerModel: z.string(),
      })
      .optional()
      .meta({ description: 'With `summarize`: the summary recorded' }),
  })
  .meta({ id: 'MoveTipAnswer' });

export const ForkAnswerSchema = z
  .object({
    id: Id.meta({ description: 'The new conversation' }),
    idMap: z.record(Id, Id).meta({ description: 'Source message id → new message id' }),
    revision: Revision.meta({ description: "The new conversation's revision" }),
  })
  .meta({ id: 'ForkAnswer' });

export const CheckpointSchema = z
  .object({
    label: z.string(),
    messageId: Id,
    status: z.enum(['active', 'rewound', 'dropped']),
    reason: z.string().optional().meta({ description: 'Why it was dropped' }),
    digest: z.string().optional().meta({ description: 'Kept by the last rewind' }),
  })
  .meta({ id: 'Checkpoint' });

export const CheckpointList = list(CheckpointSchema).meta({ id: 'CheckpointList' });

export const CheckpointSetAnswer = z
  .object({ label: z.string(), messageId: Id, status: z.literal('active'), revision: Revision })
  .meta({ id: 'CheckpointSetAnswer' });

export const ResumeAnswer = z
  .object({
    cutAt: Id.meta({ description: 'The first message of the kept window' }),
    droppedCheckpoints: z.array(z.string()).meta({ description: 'Labels dropped by the cut' }),
    keptCount: Int,
    keptTokens: Int,
    keptWholeLastTurn: z.boolean(),
    revision: Revision,
  })
  .meta({ id: 'ResumeAnswer' });

export const FailureAnswer = z
  .object({ failureId: Id, revision: Revision })
  .meta({ id: 'FailureAnswer' });

export const DraftSavedAnswer = z
  .object({
    draftId: Id,
    revision: Revision,
    replayed: z
      .boolean()
      .meta({ description: 'The same draft was saved already: nothing appended' }),
  })
  .meta({ id: 'DraftSavedAnswer' });

export const DraftAnswer = z
  .object({
    draftId: Id,
    parentId: Id.nullable(),
    messages: z.array(MessageInputSchema),
    revision: Revision.meta({ description: 'The revision of its DraftSaved' }),
    tip: Id.nullable(),
  })
  .meta({ id: 'DraftAnswer' });

export const DraftDiscardedAnswer = z
  .object({ revision: Revision, discarded: z.boolean() })
  .meta({ id: 'DraftDiscardedAnswer' });

export const RetryAnswer = z.object({ failureId: Id, input: JsonValue, error: JsonValue }).meta({
  id: 'RetryAnswer',
  description: 'The failed turn as it was recorded (`input` and `error` are the JSON sent)',
  override: { required: ['failureId', 'input', 'error'] },
});

export const BranchPageSchema = page(BranchMessageSchema).meta({ id: 'BranchPage' });

export const TreeNodeSchema = z
  .object({ id: Id, parentId: Id.nullable(), role: RoleSchema, children: z.array(Id) })
  .meta({ id: 'TreeNode' });

export const TreeSchema = z
  .object({
    tip: Tip,
    nodes: z.array(TreeNodeSchema),
    branchPoints: z.array(Id).meta({ description: 'Nodes with more than one child' }),
    checkpoints: z.array(CheckpointSchema),
  })
  .meta({ id: 'Tree' });

export const AuditEventSchema = z
  .object({
    revision: Revision,
    type: z.string().meta({ description: 'ConversationStarted, TurnCommitted, TipMoved, …' }),
    data: JsonObject,
    metadata: JsonObject.meta({
      description: 'tenantId, actor, timestamp, correlation and causation ids',
    }),
  })
  .meta({
    id: 'AuditEvent',
    description:
      'Stream revision only: a global position would show how much other tenants write (it is at the admin route `GET /v1/admin/log`)',
  });

export const EventsPage = page(AuditEventSchema).meta({ id: 'EventsPage' });

/* ---- context ---- */

export const CapabilitiesRecordSchema = z
  .object({
    vision: z.boolean(),
    snapshotShape: z.string().nullable(),
    protectTokens: Int,
    minElisionSavings: Int,
    keepImages: Int,
    maxSnapshotPages: Int,
  })
  .meta({ id: 'CapabilitiesRecord', description: 'The resolved model capabilities' });

const ReceiptCapabilities = CapabilitiesRecordSchema.extend({
  tenantRule: z
    .string()
    .nullable()
    .meta({ description: "The tenant's model-name prefix that matched, if any" }),
  requestOverrides: z.array(z.string()).meta({ description: 'Fields this request overrode' }),
}).meta({ id: 'ReceiptCapabilities' });

export const SectionsSchema = z
  .object({
    system: Int,
    tools: Int,
    messages: Int,
    toolResults: Int,
    images: Int,
    snapshots: Int,
    summaries: Int,
  })
  .meta({ id: 'ContextSections', description: 'Uncalibrated token estimate by kind' });

export const RungReceiptSchema = z
  .object({
    rung: RungSchema,
    applied: z.boolean(),
    trigger: Trigger,
    reason: z.string(),
    tokensBefore: Int,
    tokensAfter: Int,
    cachedPrefixChanged: z.boolean(),
    decisionIds: z.array(z.string()),
    details: z.record(z.string(), z.union([z.number(), z.string()])).optional(),
  })
  .meta({ id: 'RungReceipt' });

const NotApplied = z.object({ decisionId: z.string(), reason: z.string() });

const ToolRename = z
  .object({
    messageId: Id,
    block: Int.meta({ description: "The block's index in the message content" }),
    field: z.enum(['id', 'tool_use_id', 'name']),
    from: z.string().meta({ description: 'As recorded' }),
    to: z.string().meta({ description: 'As the body carries it' }),
  })
  .meta({
    id: 'ToolRename',
    description:
      'A tool-call id (repeated, or refused by the provider) or a history tool name the body ' +
      'carries in place of the recorded one; deterministic from the messages',
  });

const CacheBoundary = z.enum(['tools_system', 'decisions', 'previous', 'history']);

export const CacheReceiptSchema = z
  .object({
    enabled: z.boolean().meta({ description: 'False when the request sent `cache: false`' }),
    key: z
      .string()
      .nullable()
      .meta({ description: "OpenAI's `prompt_cache_key` sent (one per fork lineage), else null" }),
    breakpoints: z.array(
      z.object({
        at: CacheBoundary,
        itemIndex: Int.nullable().meta({
          description: 'The rendered message it follows; null: after tools and system',
        }),
        tokens: Int.meta({ description: 'Uncalibrated tokens of the request up to it' }),
        path: z
          .string()
          .optional()
          .meta({ description: 'Anthropic: where the `cache_control` marker is in the body' }),
      }),
    ),
    expectedCached: z.object({ through: CacheBoundary, tokens: Int }).nullable().meta({
      description:
        'The prefix expected to be read from the provider cache (estimate; none below 1,024 tokens or without a previous context)',
    }),
    prefixChanged: z.boolean().meta({
      description: 'A rung or revocation of this call changed bytes the previous context had',
    }),
    changedAtItem: Int.nullable(),
  })
  .meta({ id: 'CacheReceipt' });

export const ReceiptSchema = z
  .object({
    rungs: z.array(RungReceiptSchema),
    estimatedTokens: Int.meta({ description: "Calibrated estimate of the body's input tokens" }),
    rawTokens: Int,
    prefixHash: z.string().meta({
      description: 'sha256 of the body up to the first message this call changed',
    }),
    budgetTokens: Int,
    targetTokens: Int,
    calibration: z.number(),
    sections: SectionsSchema,
    notApplied: z.array(NotApplied),
    toolRenames: z
      .array(ToolRename)
      .optional()
      .meta({ description: 'Absent when the body carries every id and name as recorded' }),
    revoked: z
      .object({ decisionIds: z.array(z.string()), cachedPrefixChanged: z.boolean() })
      .optional()
      .meta({
        description:
          'Decisions revoked since the previous context, no longer applied; whether that ' +
          'changed the prefix the provider may have cached',
      }),
    capabilities: ReceiptCapabilities,
    cache: CacheReceiptSchema,
    branchSummaries: z
      .array(
        z.object({
          summaryId: z.string(),
          afterMessageId: Id.meta({ description: 'The branch point (or its last tool answer)' }),
          messageId: z.string().meta({
            description: 'The id of the carried message in the body sources (`branch-summary-…`)',
          }),
          tokens: Int.meta({ description: 'Its message, as the estimate counts it' }),
        }),
      )
      .optional()
      .meta({
        description:
          'Branch summaries carried (`PUT …/tip` with `summarize`), each right after its branch ' +
          'point; absent when none',
      }),
  })
  .meta({ id: 'ContextReceipt' });

export const ContextAnswerSchema = z
  .object({
    contextId: Id,
    body: JsonObject.meta({ description: "The provider's request body, ready to send" }),
    receipt: ReceiptSchema,
    revision: Revision,
    tip: Id.nullable().meta({
      description: "The tip it was built on: the next commit's `expectedTip`",
    }),
  })
  .meta({ id: 'ContextAnswer' });

const Measured = z.object({ provider: z.string(), estimated: Int, measured: Int }).nullable();

export const ContextReportSchema = z
  .object({
    provider: ProviderSchema,
    model: z.string(),
    capabilities: ReceiptCapabilities,
    messages: Int.meta({ description: 'Messages in the live window' }),
    decisionsInForce: Int.optional(),
    wouldApply: z
      .array(RungSchema)
      .optional()
      .meta({
        description:
          'Rungs a context call would apply now (e.g. strip_images for an image over a provider ' +
          'limit); the report applies and records none, its estimate is after them',
      }),
    estimated: z
      .object({ total: Int, raw: Int, sections: SectionsSchema })
      .nullable()
      .meta({ description: 'null while the window is empty' }),
    calibration: z.number(),
    lastMeasured: Measured.meta({
      description: 'The last measured usage paired with its estimate',
    }),
    cache: z
      .object({
        turns: Int.meta({ description: 'Assistant messages of the window with input usage' }),
        inputTokens: Int.meta({
          description: 'All input tokens they report: uncached + read + written',
        }),
        cacheReadTokens: Int,
        cacheWriteTokens: Int,
        hitRate: z
          .number()
          .nullable()
          .meta({ description: 'cacheReadTokens / inputTokens; null without usage' }),
      })
      .meta({ description: "Prompt-cache use the provider reported on the window's turns" }),
  })
  .meta({ id: 'ContextReport' });

/* ---- replay and reproduction ---- */

const DecisionBase = {
  id: z.string(),
  trigger: Trigger,
  provider: z.string(),
  model: z.string(),
  tokensBefore: Int,
  tokensAfter: Int,
  cachedPrefixChanged: z.boolean(),
  placeholders: Int.optional().meta({
    description:
      'Version of the placeholder texts: 2 names no conversation and no message id (a fork renders its copy byte for byte); absent = 1, recorded before (texts with GET /v1/conversations/{id}/messages/…)',
  }),
};
const Covered = { fromId: Id, toId: Id, coveredIds: z.array(Id) };

// Open: a decision may carry more fields than these (as JSON).
export const CompactionDecisionSchema = z
  .discriminatedUnion('rung', [
    z
      .object({
        ...DecisionBase,
        rung: z.literal('elide'),
        results: z.array(z.object({ messageId: Id, toolUseId: z.string(), originalTokens: Int })),
      })
      .catchall(JsonValue),
    z
      .object({
        ...DecisionBase,
        rung: z.literal('strip_images'),
        images: z.array(
          z.object({
            messageId: Id,
            path: z.string(),
            mediaType: z.string(),
            bytes: Int,
            width: Int.nullable(),
            height: Int.nullable(),
          }),
        ),
      })
      .catchall(JsonValue),
    z
      .object({
        ...DecisionBase,
        ...Covered,
        rung: z.literal('snapshot'),
        shape: z.string(),
        pageCount: Int,
        sourceChars: Int,
        sourceHash: z.string(),
        textFormat: z.string().optional(),
      })
      .catchall(JsonValue),
    z
      .object({
        ...DecisionBase,
        ...Covered,
        rung: z.literal('summary'),
        summary: z.string(),
        summarizerModel: z.string(),
        windows: Int,
      })
      .catchall(JsonValue),
    z
      .object({
        ...DecisionBase,
        ...Covered,
        rung: z.literal('drop'),
        droppedTokens: Int.meta({ description: 'Estimated tokens of what was left out' }),
      })
      .catchall(JsonValue),
  ])
  .meta({ id: 'CompactionDecision' });

export const CompactionRowSchema = z
  .object({
    decision: CompactionDecisionSchema,
    status: z.enum(['in_force', 'revoked']).meta({
      description:
        'in_force: later contexts apply it where it still fits the live window; revoked: not any more',
    }),
  })
  .meta({ id: 'CompactionRow' });

export const CompactionList = z
  .object({ items: z.array(CompactionRowSchema) })
  .meta({ id: 'CompactionList' });

export const CompactionRevokedAnswer = z
  .object({
    decisionId: z.string(),
    status: z.literal('revoked'),
    revision: Revision,
    replayed: z.boolean().meta({ description: 'It was revoked already; nothing was appended' }),
  })
  .meta({ id: 'CompactionRevokedAnswer' });

export const ContextSummarySchema = z
  .object({
    contextId: Id,
    revision: Revision,
    timestamp: Timestamp,
    provider: z.string(),
    model: z.string(),
    mode: Mode,
    budgetTokens: Int,
    tip: Id.nullable(),
    cutAt: Id.nullable(),
    bodyHash: z.string(),
    estimatedTokens: Int,
    decisionIds: z.array(z.string()),
    newDecisionIds: z.array(z.string()),
    capabilities: CapabilitiesRecordSchema.nullable().meta({
      description: 'null on contexts recorded before capabilities were',
    }),
    rungs: z
      .array(
        z.object({
          rung: z.string(),
          applied: z.boolean(),
          trigger: z.string(),
          reason: z.string(),
          tokensBefore: Int,
          tokensAfter: Int,
          decisionIds: z.array(z.string()),
        }),
      )
      .nullable()
      .meta({
        description:
          "The ladder's rungs in the order tried, each with why it ran, did nothing or was " +
          'skipped; null on contexts recorded before the receipt carried them (receipt version 1)',
      }),
  })
  .meta({
    id: 'ContextSummary',
    description: 'A context handed out (its ContextAssembled receipt)',
  });

export const ContextsPage = page(ContextSummarySchema).meta({ id: 'ContextsPage' });

const PendingFailure = RetryAnswer.nullable();

export const ReplayViewSchema = z
  .object({
    conversationId: Id,
    revision: Revision,
    event: z.object({ revision: Revision, type: z.string(), timestamp: Timestamp }),
    conversation: ConversationSchema,
    tip: Tip,
    branch: z.object({
      length: Int.meta({ description: 'Length of the whole active branch' }),
      items: z.array(BranchMessageSchema),
      next: z.string().optional().meta({
        description: 'Cursor of the next page at the same revision (pass `revision` again)',
      }),
    }),
    tree: TreeSchema,
    checkpoints: z.array(CheckpointSchema),
    window: z.object({ cutAt: Id.nullable(), tip: Tip, messages: Int }),
    resume: z
      .object({
        cutAt: Id,
        tip: Id,
        keepMessages: Int.nullable(),
        keepTokens: Int.nullable(),
        keptCount: Int,
        keptTokens: Int,
        keptWholeLastTurn: z.boolean(),
        droppedCheckpoints: z.array(z.string()),
      })
      .nullable(),
    compactions: z.object({
      decisions: z.array(CompactionDecisionSchema),
      inForce: z.array(z.string()),
      notInForce: z.array(NotApplied),
    }),
    pendingFailure: PendingFailure,
    lastContext: z.object({ contextId: Id, revision: Revision }).nullable(),
  })
  .meta({ id: 'ReplayView' });

export const ReproductionSchema = z
  .object({
    contextId: Id,
    revision: Revision.meta({ description: 'Revision of the ContextAssembled event' }),
    basedOnRevision: Revision,
    provider: z.string(),
    model: z.string(),
    body: JsonObject.nullable().meta({
      description: 'The reproduced body; null when it could not be rebuilt exactly',
    }),
    bodyHash: z.string().nullable(),
    recordedHash: z.string(),
    match: z.boolean(),
    checks: z.array(
      z.object({
        name: z.string(),
        recorded: JsonValue,
        reproduced: JsonValue,
        equal: z.boolean(),
      }),
    ),
    mismatch: ProblemSchema.optional().meta({
      description: 'When `match` is false: `code: context_mismatch` with a `reason`',
    }),
  })
  .meta({ id: 'Reproduction' });

/* ---- settings, tenants, admin, health ---- */

export const ContextSettingsSchema = z
  .object({
    models: z.record(z.string(), CapabilityOverridesSchema),
    version: Int.meta({ description: 'How many times the settings were set (0 = never)' }),
  })
  .meta({ id: 'ContextSettings' });

export const TenantCreated = z
  .object({
    id: Id,
    apiKey: z.string().meta({ description: 'Shown once: `arb_<keyId>_<secret>` (opaque)' }),
    keyId: Id,
  })
  .meta({ id: 'TenantCreated' });

export const KeyIssued = z
  .object({ keyId: Id, apiKey: z.string().meta({ description: 'Shown once (opaque)' }) })
  .meta({ id: 'KeyIssued' });

export const KeyList = list(
  z.object({ keyId: Id, label: z.string().nullable(), revoked: z.boolean() }),
).meta({ id: 'KeyList' });

export const RebuildAnswer = z
  .object({ position: z.string().nullable().meta({ description: 'Log position reached' }) })
  .meta({ id: 'RebuildAnswer' });

export const ProjectorStatusSchema = z
  .object({
    position: z.string().nullable(),
    caughtUp: z.boolean(),
    running: z.boolean(),
    lastError: z.string().nullable(),
  })
  .meta({ id: 'ProjectorStatus' });

/** Unauthenticated: that the service is up, nothing more (no positions, no store details). */
export const HealthSchema = z.strictObject({ status: z.literal('ok') }).meta({ id: 'Health' });

export const LogHeadSchema = z
  .object({
    kind: z.string().meta({ example: 'sqlite' }),
    position: z.string().nullable().meta({ description: 'Last global ($all) position' }),
  })
  .meta({ id: 'LogHead' });

/* ---- erasure and retention ---- */

const ErasedConversationFields = {
  conversationId: Id,
  erasedAt: z.string().meta({ description: 'ISO-8601' }),
  reason: z.string(),
  revision: Int.meta({ description: 'Revision of `ConversationErased` in its stream' }),
};

export const ConversationErasedAnswer = z
  .object({
    ...ErasedConversationFields,
    erasedForks: z.array(z.object(ErasedConversationFields)),
    keptForks: z
      .array(Id)
      .meta({ description: 'Forks left as they are (forks=keep): they keep their own copies' }),
  })
  .meta({ id: 'ConversationErasedAnswer' });

export const TenantErasedAnswer = z
  .object({
    tenantId: Id,
    conversations: Int.meta({ description: 'Conversations the tenant had' }),
    erased: Int.meta({ description: 'Erased by this call (the others were already)' }),
    reason: z.string(),
  })
  .meta({ id: 'TenantErasedAnswer' });

export const RetentionAnswer = z
  .object({ tenantId: Id, retentionDays: Int.nullable() })
  .meta({ id: 'RetentionAnswer' });

export const SweepAnswer = z
  .object({
    tenants: Int.meta({ description: 'Tenants with a retention policy' }),
    erased: z.array(z.object({ tenantId: Id, conversationId: Id, idleDays: Int })),
  })
  .meta({ id: 'SweepAnswer' });
export const RateLimitAnswer = z
  .object({
    limit: RateLimitSchema.nullable().meta({ description: "The tenant's own limit, if set" }),
    effective: RateLimitSchema.nullable().meta({
      description:
        'The limit applied: the tenant’s own, else the service default; null = unlimited',
    }),
  })
  .meta({ id: 'RateLimitAnswer' });
