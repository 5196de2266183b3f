/** Every route of the HTTP API; the OpenAPI document is generated from this table. */
import { z } from 'zod';
import { Id, Label } from './common';
import { CONSOLE_ROUTES } from './console-routes';
import { MessageSchema } from './messages';
import { type ProblemCode } from './problems';
import * as Q from './requests';
import * as R from './responses';

export type Method = 'get' | 'post' | 'put' | 'delete';
export type Auth = 'tenant' | 'admin' | 'none';

export interface Answer {
  description: string;
  /** JSON answer body; absent with `text` or for 204. */
  schema?: z.ZodType;
  /** A text answer (export), by content type. */
  text?: string[];
  /** Response headers worth documenting. */
  headers?: z.ZodObject;
}

export interface RouteSpec {
  method: Method;
  /** OpenAPI form: `/v1/conversations/{id}`. */
  path: string;
  operationId: string;
  tag: string;
  auth: Auth;
  summary: string;
  description?: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: { schema: z.ZodType; required: boolean };
  responses: Partial<Record<200 | 201 | 204, Answer>>;
  /** Problem codes this route answers besides the common ones (see `errorCodes`). */
  errors: ProblemCode[];
  /** The route writes to the log (adds the storage and concurrency codes). */
  writes?: boolean;
  /** The route takes an `Idempotency-Key` header (adds `idempotency_key_reused`). */
  idempotent?: boolean;
  /** Request headers the route reads (besides Authorization and Idempotency-Key). */
  headers?: z.ZodObject;
}

/** `Last-Event-ID` of a live stream: the last stream revision the client received. */
export const LastEventIdHeader = z.object({
  'last-event-id': z
    .string()
    .regex(/^(-1|0|[1-9][0-9]{0,15})$/)
    .optional()
    .meta({
      description:
        'Resume after this stream revision: the events after it are replayed from the log, then ' +
        'the stream goes live. `-1` replays from the first event. Without it the stream starts ' +
        "after the conversation's last revision (live only). Browsers' EventSource sends it by " +
        'itself on reconnect (each event carries its revision as `id:`).',
    }),
});

/** The `Idempotency-Key` request header of the creating POSTs (IETF httpapi draft). */
export const IdempotencyKeyHeader = z.object({
  'idempotency-key': z
    .string()
    .regex(/^[\x21-\x7e]{1,255}$/)
    .optional()
    .meta({
      description:
        'Makes a retry safe: the same key with the same request answers the first answer again ' +
        '(same status and body, header `Idempotent-Replayed: true`) and writes nothing; the same ' +
        'key with another request is `422 idempotency_key_reused`; while another server process ' +
        'sharing the data dir still runs the key, `409 idempotency_in_progress`. Per tenant, kept ' +
        'ARBOR_IDEMPOTENCY_TTL_HOURS (24 h); 1-255 printable ASCII characters (or an sf-string).',
    }),
});

const conversation = z.object({ id: Id });
const inConversation = <T extends z.ZodRawShape>(shape: T) => z.object({ id: Id, ...shape });
const CONV = '/v1/conversations/{id}';
/** Every route of one conversation: unknown (or another tenant's) is 404, erased by its tenant 410. */
const missing: ProblemCode[] = ['conversation_not_found', 'conversation_erased'];

const BASE_ROUTES: readonly RouteSpec[] = [
  {
    method: 'get',
    path: '/health',
    operationId: 'health',
    tag: 'health',
    auth: 'none',
    summary: 'Liveness: the service is up (nothing else, no credentials needed)',
    responses: { 200: { description: 'Up', schema: R.HealthSchema } },
    errors: [],
  },
  {
    method: 'post',
    path: '/v1/tenants',
    operationId: 'createTenant',
    idempotent: true,
    tag: 'tenants (admin)',
    auth: 'admin',
    summary: 'Create a tenant; returns its id and an API key shown once',
    description:
      'The key is shown in this answer only (Arbor keeps its SHA-256). A retry with the same ' +
      '`Idempotency-Key` creates nothing and answers `409 secret_shown_once` with the `id` and ' +
      '`keyId` of the first answer, never the key: the memo of the answer does not hold it.',
    body: { schema: Q.CreateTenantBody, required: false },
    responses: { 201: { description: 'Created', schema: R.TenantCreated } },
    errors: ['secret_shown_once'],
    writes: true,
  },
  {
    method: 'post',
    path: '/v1/tenants/{tenantId}/keys',
    operationId: 'issueKey',
    idempotent: true,
    tag: 'tenants (admin)',
    auth: 'admin',
    summary: 'Issue another API key for a tenant (shown once)',
    description:
      'The key is shown in this answer only. A retry with the same `Idempotency-Key` issues ' +
      'nothing and answers `409 secret_shown_once` with the `keyId` of the first answer, never ' +
      "the key. Revoking one of the tenant's keys or erasing the tenant forgets those answers: a " +
      'retry then runs again (refused for an erased tenant).',
    params: z.object({ tenantId: Id }),
    body: { schema: Q.IssueKeyBody, required: false },
    responses: { 201: { description: 'Issued', schema: R.KeyIssued } },
    errors: ['tenant_not_found', 'secret_shown_once'],
    writes: true,
  },
  {
    method: 'get',
    path: '/v1/tenants/{tenantId}/keys',
    operationId: 'listKeys',
    tag: 'tenants (admin)',
    auth: 'admin',
    summary: "A tenant's keys (ids and labels, never secrets)",
    params: z.object({ tenantId: Id }),
    responses: { 200: { description: 'The keys', schema: R.KeyList } },
    errors: ['tenant_not_found'],
  },
  {
    method: 'delete',
    path: '/v1/tenants/{tenantId}/keys/{keyId}',
    operationId: 'revokeKey',
    tag: 'tenants (admin)',
    auth: 'admin',
    summary: 'Revoke a key; it answers 401 from then on',
    params: z.object({ tenantId: Id, keyId: z.string() }),
    responses: { 204: { description: 'Revoked (or already revoked)' } },
    errors: ['not_found'],
    writes: true,
  },
  {
    method: 'delete',
    path: '/v1/tenants/{tenantId}',
    operationId: 'eraseTenant',
    tag: 'tenants (admin)',
    auth: 'admin',
    summary:
      'Erase a tenant: every conversation erased, every API key revoked, `TenantErased` recorded',
    description:
      'Each conversation is erased as by `DELETE /v1/conversations/{id}` (its key destroyed, its ' +
      'read-model rows dropped); then the keys are revoked and `TenantErased` is appended to the ' +
      "tenant's stream. Running it again erases what a crash left and records it again.",
    params: z.object({ tenantId: Id }),
    query: Q.EraseTenantQuery,
    responses: { 200: { description: 'Erased', schema: R.TenantErasedAnswer } },
    errors: ['tenant_not_found'],
    writes: true,
  },
  {
    method: 'put',
    path: '/v1/tenants/{tenantId}/retention',
    operationId: 'setRetention',
    tag: 'tenants (admin)',
    auth: 'admin',
    summary: "Set the tenant's retention (idle days before a conversation is erased; null: keep)",
    params: z.object({ tenantId: Id }),
    body: { schema: Q.RetentionBody, required: true },
    responses: { 200: { description: 'Set', schema: R.RetentionAnswer } },
    errors: ['tenant_not_found'],
    writes: true,
  },
  {
    method: 'get',
    path: '/v1/tenants/{tenantId}/limits',
    operationId: 'getTenantLimits',
    tag: 'tenants (admin)',
    auth: 'admin',
    summary: "A tenant's request rate limit (its own and the one applied)",
    params: z.object({ tenantId: Id }),
    responses: { 200: { description: 'The limits', schema: R.RateLimitAnswer } },
    errors: ['tenant_not_found'],
  },
  {
    method: 'put',
    path: '/v1/tenants/{tenantId}/limits',
    operationId: 'putTenantLimits',
    tag: 'tenants (admin)',
    auth: 'admin',
    summary: "Set a tenant's request rate limit (a token bucket; one TenantRateLimitSet event)",
    description:
      'Every tenant-key request takes one token from the tenant’s bucket (`burst` tokens, ' +
      '`ratePerSecond` added back per second); an empty bucket answers `429 rate_limited` with ' +
      '`Retry-After` and the IETF `RateLimit-Policy` / `RateLimit` headers. `limit: null` ' +
      'returns the tenant to the service default (ARBOR_RATE_LIMIT_RPS / _BURST; unset: ' +
      'unlimited). One bucket per tenant across replicas when REDIS_URL is set.',
    params: z.object({ tenantId: Id }),
    body: { schema: Q.RateLimitBody, required: true },
    responses: { 200: { description: 'The limits now', schema: R.RateLimitAnswer } },
    errors: ['tenant_not_found'],
    writes: true,
  },
  {
    method: 'post',
    path: '/v1/admin/retention/sweep',
    operationId: 'sweepRetention',
    tag: 'admin',
    auth: 'admin',
    summary: 'Apply every retention policy now (the sweeper `serve` runs on a timer)',
    responses: { 200: { description: 'What was erased', schema: R.SweepAnswer } },
    errors: [],
    writes: true,
  },
  {
    method: 'post',
    path: '/v1/admin/projections/rebuild',
    operationId: 'rebuildProjections',
    tag: 'admin',
    auth: 'admin',
    summary: 'Drop every read model and replay the log from position 0',
    responses: { 200: { description: 'Rebuilt', schema: R.RebuildAnswer } },
    errors: [],
  },
  {
    method: 'get',
    path: '/v1/admin/log',
    operationId: 'logHead',
    tag: 'admin',
    auth: 'admin',
    summary: "The log's head: its last global ($all) position (never in tenant answers)",
    responses: { 200: { description: 'The head', schema: R.LogHeadSchema } },
    errors: [],
  },
  {
    method: 'get',
    path: '/metrics',
    operationId: 'metrics',
    tag: 'admin',
    auth: 'admin',
    summary: 'Prometheus metrics (text format 0.0.4), admin key; also open on ARBOR_METRICS_PORT',
    description:
      'HTTP answers and latency by route template and status, turn commits, projector lag per ' +
      'partition (log positions and seconds behind the head), projector lease changes, Redis ' +
      'errors, rate-limit refusals per tenant, context-ladder rungs applied, process metrics. ' +
      'Every answer of the API carries `X-Request-Id` (the caller’s when it is 1–128 token ' +
      'characters, else a fresh UUID), also written in the access log.',
    responses: { 200: { description: 'The metrics', text: ['text/plain'] } },
    errors: [],
  },
  {
    method: 'get',
    path: '/v1/admin/projections',
    operationId: 'projectorStatus',
    tag: 'admin',
    auth: 'admin',
    summary: 'Projector position and state',
    responses: { 200: { description: 'The projector', schema: R.ProjectorStatusSchema } },
    errors: [],
  },
  {
    method: 'get',
    path: '/v1/settings/context',
    operationId: 'getContextSettings',
    tag: 'settings',
    auth: 'tenant',
    summary: "The tenant's context capability overrides by model-name prefix",
    description: '`{models, version}`; `{models: {}, version: 0}` until they are first set.',
    responses: { 200: { description: 'The settings', schema: R.ContextSettingsSchema } },
    errors: [],
  },
  {
    method: 'put',
    path: '/v1/settings/context',
    operationId: 'putContextSettings',
    tag: 'settings',
    auth: 'tenant',
    summary:
      "Replace the tenant's context capability overrides (one TenantContextSettingsSet event)",
    description:
      'Per model-name prefix (case-insensitive, stored lowercase; the longest prefix matching ' +
      'the model wins): `vision`, `snapshotShape` (a page shape id, or null for no snapshots), ' +
      "`protectTokens`, `minElisionSavings`, `keepImages`, `maxSnapshotPages`. A request's own " +
      '`capabilities` override these field by field. Contexts already handed out keep (and ' +
      'reproduce with) the capabilities they recorded. An unknown shape id is `400 ' +
      'unknown_snapshot_shape`. Setting the same table again appends nothing.',
    body: { schema: Q.ContextSettingsBody, required: true },
    responses: { 200: { description: 'The settings now', schema: R.ContextSettingsSchema } },
    errors: ['unknown_snapshot_shape'],
    writes: true,
  },
  {
    method: 'post',
    path: '/v1/conversations',
    operationId: 'startConversation',
    idempotent: true,
    tag: 'conversations',
    auth: 'tenant',
    summary: 'Start a conversation',
    body: { schema: Q.StartConversationBody, required: false },
    responses: { 201: { description: 'Started', schema: R.StartedAnswerSchema } },
    errors: ['conversation_exists'],
    writes: true,
  },
  {
    method: 'get',
    path: '/v1/conversations',
    operationId: 'listConversations',
    tag: 'conversations',
    auth: 'tenant',
    summary: "The tenant's conversations, oldest first, cursor-paginated",
    query: Q.ConversationsQuery,
    responses: { 200: { description: 'One page', schema: R.ConversationPage } },
    errors: [],
  },
  {
    method: 'get',
    path: CONV,
    operationId: 'getConversation',
    tag: 'conversations',
    auth: 'tenant',
    summary: 'Tip, revision, title, lineage (forked from / forks), counts',
    params: conversation,
    responses: { 200: { description: 'The conversation', schema: R.ConversationSchema } },
    errors: missing,
  },
  {
    method: 'delete',
    path: CONV,
    operationId: 'eraseConversation',
    tag: 'conversations',
    auth: 'tenant',
    summary:
      'Erase a conversation: its key destroyed, `ConversationErased` appended, read models dropped',
    description:
      'Crypto-shredding: the content of every event of the conversation is sealed under its own ' +
      'data key, which is destroyed first, so nothing of the content can be read anywhere after ' +
      '(log, exports, replays). Then `ConversationErased` (actor, time, reason) is appended, its ' +
      'read-model rows, rendered pages and cached bodies are dropped. From then on every route ' +
      'answers `410 conversation_erased` for it (another tenant still gets 404); the audit log ' +
      'lists its events with their structure and `[erased]` content, and the hash chain verifies. ' +
      'Forks are separate conversations with keys of their own: `forks=keep` (default) leaves ' +
      'them (with the messages they copied); `forks=erase` erases the whole lineage below it.',
    params: conversation,
    query: Q.EraseConversationQuery,
    body: { schema: Q.EraseBody, required: false },
    responses: { 200: { description: 'Erased', schema: R.ConversationErasedAnswer } },
    errors: missing,
    writes: true,
  },
  {
    method: 'put',
    path: CONV,
    operationId: 'ensureConversation',
    tag: 'conversations',
    auth: 'tenant',
    summary: 'Create the conversation with this id, or get it when it exists (retry-safe)',
    description:
      '201 with a new conversation (title and metadata from the body); 200 when the id exists, ' +
      'unchanged (the body is not applied to it). Lets a client use its own session id as the ' +
      'conversation id without a check first.',
    params: conversation,
    body: { schema: Q.EnsureConversationBody, required: false },
    responses: {
      201: { description: 'Created', schema: R.StartedAnswerSchema },
      200: { description: 'It existed', schema: R.StartedAnswerSchema },
    },
    errors: [],
    writes: true,
  },
  {
    method: 'post',
    path: `${CONV}/turns`,
    operationId: 'commitTurn',
    idempotent: true,
    tag: 'conversations',
    auth: 'tenant',
    summary: 'Commit one whole turn atomically (idempotent by turnId)',
    description:
      'The messages chain from `parentId` (an earlier message starts a new branch; `null` on ' +
      "an empty conversation or an empty branch, a new root). A turn ends on the assistant's " +
      'answer or on tool results that answer every call of its last tool round; after such a ' +
      'turn the next one opens with the assistant continuing. `409 ' +
      'stale_tip` when `expectedTip` is not the tip; `422 invalid_turn` when the turn leaves a ' +
      'tool_use unanswered or has a tool_result without its call; `413 payload_too_large` for ' +
      'an image over the cap.',
    params: conversation,
    body: { schema: Q.CommitTurnBody, required: true },
    responses: {
      201: { description: 'Committed', schema: R.TurnAnswerSchema },
      200: {
        description: 'Already committed with this turnId (replayed)',
        schema: R.TurnAnswerSchema,
      },
    },
    errors: [
      ...missing,
      'parent_not_found',
      'message_not_found',
      'stale_tip',
      'turn_id_conflict',
      'invalid_turn',
      'not_a_turn_boundary',
    ],
    writes: true,
  },
  {
    method: 'put',
    path: `${CONV}/tip`,
    operationId: 'moveTip',
    tag: 'conversations',
    auth: 'tenant',
    summary:
      'Branch: move the tip to any message, or to none; appends exactly one TipMoved (with ' +
      '`summarize`, also one BranchSummarized)',
    description:
      '`messageId: null` empties the active branch: nothing is removed (the old path stays in ' +
      'the tree and the tip can move back), a context on it has an empty history, and the next ' +
      'turn commits with `parentId: null` as a new root.',
    params: conversation,
    body: { schema: Q.MoveTipBody, required: true },
    responses: { 200: { description: 'Moved', schema: R.MoveTipAnswerSchema } },
    errors: [
      ...missing,
      'message_not_found',
      'stale_tip',
      'nothing_to_summarize',
      'summarizer_not_configured',
      'summarizer_failed',
    ],
    writes: true,
  },
  {
    method: 'post',
    path: `${CONV}/forks`,
    operationId: 'fork',
    idempotent: true,
    tag: 'conversations',
    auth: 'tenant',
    summary:
      'Fork the path ending at messageId (default: tip) into a new conversation with new ids',
    description:
      'Retry-safe: a fork retried after an error (e.g. 503 store_unavailable) returns the same ' +
      '{id, idMap} instead of making a second fork, as long as nothing else was written to the ' +
      'source in between; give `id` to make the retry safe in every case, also after a 201 whose ' +
      'answer was lost.',
    params: conversation,
    body: { schema: Q.ForkBody, required: false },
    responses: { 201: { description: 'Forked', schema: R.ForkAnswerSchema } },
    errors: [...missing, 'message_not_found', 'not_a_turn_boundary', 'conversation_exists'],
    writes: true,
  },
  {
    method: 'post',
    path: `${CONV}/checkpoints`,
    operationId: 'setCheckpoint',
    idempotent: true,
    tag: 'conversations',
    auth: 'tenant',
    summary: 'Set a checkpoint label at a turn boundary (default: the tip)',
    params: conversation,
    body: { schema: Q.SetCheckpointBody, required: true },
    responses: { 201: { description: 'Set', schema: R.CheckpointSetAnswer } },
    errors: [...missing, 'message_not_found', 'not_a_turn_boundary', 'checkpoint_exists'],
    writes: true,
  },
  {
    method: 'get',
    path: `${CONV}/checkpoints`,
    operationId: 'listCheckpoints',
    tag: 'conversations',
    auth: 'tenant',
    summary: 'Checkpoint labels with target and status (active, rewound, dropped + reason)',
    params: conversation,
    responses: { 200: { description: 'Every checkpoint', schema: R.CheckpointList } },
    errors: [...missing, 'answer_too_large'],
  },
  {
    method: 'post',
    path: `${CONV}/checkpoints/{label}/rewind`,
    operationId: 'rewind',
    tag: 'conversations',
    auth: 'tenant',
    summary:
      'Return to the label keeping a digest; 409 checkpoint_dropped when its target was trimmed',
    params: inConversation({ label: Label }),
    body: { schema: Q.RewindBody, required: false },
    responses: { 200: { description: 'Rewound', schema: R.TipAnswerSchema } },
    errors: [...missing, 'checkpoint_not_found', 'checkpoint_dropped', 'stale_tip'],
    writes: true,
  },
  {
    method: 'post',
    path: `${CONV}/resume`,
    operationId: 'resume',
    tag: 'conversations',
    auth: 'tenant',
    summary: 'Trim the live window to the most recent messages at a non-orphan boundary',
    params: conversation,
    body: { schema: Q.ResumeBody, required: true },
    responses: { 200: { description: 'The cut', schema: R.ResumeAnswer } },
    errors: [...missing, 'invalid_resume'],
    writes: true,
  },
  {
    method: 'post',
    path: `${CONV}/failures`,
    operationId: 'recordFailure',
    idempotent: true,
    tag: 'conversations',
    auth: 'tenant',
    summary: 'Record a failed turn so it can be retried after a restart',
    params: conversation,
    body: { schema: Q.FailureBody, required: true },
    responses: { 201: { description: 'Recorded', schema: R.FailureAnswer } },
    errors: missing,
    writes: true,
  },
  {
    method: 'put',
    path: `${CONV}/draft`,
    operationId: 'saveDraft',
    tag: 'conversations',
    auth: 'tenant',
    summary: 'Save the turn in progress (replaces any draft); durable, never history',
    description:
      'An open turn (e.g. a run paused for tool approval: user + assistant tool_use) kept as a ' +
      '`DraftSaved` event: it survives restarts and is never part of the history, a context or ' +
      'a resume until committed. The turn rules apply except that it need not end on an answer ' +
      'and its last message may hold unanswered tool calls. The same draft again appends nothing.',
    params: conversation,
    body: { schema: Q.SaveDraftBody, required: true },
    responses: { 200: { description: 'Saved', schema: R.DraftSavedAnswer } },
    errors: [...missing, 'invalid_turn', 'parent_not_found', 'not_a_turn_boundary'],
    writes: true,
  },
  {
    method: 'get',
    path: `${CONV}/draft`,
    operationId: 'getDraft',
    tag: 'conversations',
    auth: 'tenant',
    summary: 'The saved draft, or 404 draft_not_found',
    params: conversation,
    responses: { 200: { description: 'The draft', schema: R.DraftAnswer } },
    errors: [...missing, 'draft_not_found'],
  },
  {
    method: 'delete',
    path: `${CONV}/draft`,
    operationId: 'discardDraft',
    tag: 'conversations',
    auth: 'tenant',
    summary: 'Discard the draft (one DraftDiscarded; none: nothing appended)',
    params: conversation,
    responses: { 200: { description: 'Discarded', schema: R.DraftDiscardedAnswer } },
    errors: missing,
    writes: true,
  },
  {
    method: 'post',
    path: `${CONV}/draft/commit`,
    operationId: 'commitDraft',
    idempotent: true,
    tag: 'conversations',
    auth: 'tenant',
    summary: 'Commit the draft plus `messages` as one turn, atomically (the draft goes with it)',
    params: conversation,
    body: { schema: Q.CommitDraftBody, required: false },
    responses: {
      201: { description: 'Committed', schema: R.TurnAnswerSchema },
      200: { description: 'This turnId was committed already', schema: R.TurnAnswerSchema },
    },
    errors: [...missing, 'draft_not_found', 'invalid_turn', 'stale_tip', 'turn_id_conflict'],
    writes: true,
  },
  {
    method: 'get',
    path: `${CONV}/retry`,
    operationId: 'retry',
    tag: 'conversations',
    auth: 'tenant',
    summary:
      'The failed turn to retry, or 404 nothing_to_retry (distinct from conversation_not_found)',
    params: conversation,
    responses: { 200: { description: 'The failed turn', schema: R.RetryAnswer } },
    errors: [...missing, 'nothing_to_retry'],
  },
  {
    method: 'get',
    path: `${CONV}/messages`,
    operationId: 'activeBranch',
    tag: 'conversations',
    auth: 'tenant',
    summary: 'The active branch, root → tip, paged',
    params: conversation,
    query: Q.BranchQuery,
    responses: { 200: { description: 'One page', schema: R.BranchPageSchema } },
    errors: missing,
  },
  {
    method: 'get',
    path: `${CONV}/messages/{messageId}`,
    operationId: 'getMessage',
    tag: 'conversations',
    auth: 'tenant',
    summary: 'One message, the original bytes, even if compacted',
    params: inConversation({ messageId: Id }),
    responses: { 200: { description: 'The message', schema: MessageSchema } },
    errors: [...missing, 'message_not_found'],
  },
  {
    method: 'get',
    path: `${CONV}/tree`,
    operationId: 'tree',
    tag: 'conversations',
    auth: 'tenant',
    summary: 'Every node with parent and children, the tip, branch points, checkpoints',
    params: conversation,
    responses: { 200: { description: 'The tree', schema: R.TreeSchema } },
    errors: [...missing, 'answer_too_large'],
  },
  {
    method: 'get',
    path: `${CONV}/events`,
    operationId: 'events',
    tag: 'conversations',
    auth: 'tenant',
    summary: "The conversation's audit log (its events), from a revision, paginated",
    params: conversation,
    query: Q.EventsQuery,
    responses: { 200: { description: 'One page', schema: R.EventsPage } },
    errors: missing,
  },
  {
    method: 'get',
    path: `${CONV}/stream`,
    operationId: 'stream',
    tag: 'conversations',
    auth: 'tenant',
    summary: "Live: the conversation's events as they are projected (Server-Sent Events)",
    description:
      '`text/event-stream`. Each event is `id: <revision>` + `data: <AuditEvent JSON>` (the ' +
      'items of `GET …/events`, unnamed so `onmessage` gets them), sent once the read models ' +
      'hold it, so a read after receiving it sees it. `Last-Event-ID` resumes after a revision ' +
      '(missed events are replayed from the log, then live). A comment line (`: heartbeat`) ' +
      'every ARBOR_STREAM_HEARTBEAT_MS (15 s). A tenant holds at most ' +
      'ARBOR_STREAM_MAX_PER_TENANT (32) open streams: one more is `429 too_many_streams`. On ' +
      'shutdown the server ends every stream; clients reconnect with `Last-Event-ID`.',
    params: conversation,
    headers: LastEventIdHeader,
    responses: {
      200: {
        description: 'The stream (until the client or the server closes it)',
        text: ['text/event-stream'],
      },
    },
    errors: [...missing, 'too_many_streams'],
  },
  {
    method: 'get',
    path: `${CONV}/export`,
    operationId: 'export',
    tag: 'conversations',
    auth: 'tenant',
    summary: 'The tree (jsonl, claude-code and pi default) or the active branch (markdown default)',
    description:
      'JSON Lines: one message per line (the `Message` schema). Markdown: a transcript for people. ' +
      '`claude-code` / `pi`: a session file that tool resumes (the tree, the active branch last; ' +
      'for pi, checkpoints as labels); what the format cannot carry is counted, by reason, in the ' +
      '`Arbor-Export-Report` header (JSON) and the file name is in `Content-Disposition`.',
    params: conversation,
    query: Q.ExportQuery,
    responses: {
      200: {
        description: 'The export',
        text: ['application/x-ndjson', 'text/markdown'],
        headers: z.object({
          'Arbor-Export-Report': z.string().optional().meta({
            description:
              'claude-code / pi: JSON counts, by reason, of what the format cannot carry',
          }),
          'Content-Disposition': z
            .string()
            .optional()
            .meta({ description: 'claude-code / pi: the session file name' }),
        }),
      },
    },
    errors: missing,
  },
  {
    method: 'post',
    path: `${CONV}/context`,
    operationId: 'buildContext',
    tag: 'context',
    auth: 'tenant',
    summary:
      'The next request body for a provider, fitted to the budget by the ladder, with a receipt',
    description:
      "Rungs, cheapest first: elide old tool results, strip old images, snapshot the middle onto PNG pages (foveated: the oldest stretch on a denser page when the legible one does not fit), summarize, and last drop the oldest part of the middle (unless `allowDrop: false`). `overflow` (numbers or the raw provider error) triggers reactive recovery. `422 cannot_fit` (with `systemTokens`, `toolsTokens`, `protectedTailTokens`) only when the system prompt, the tools and the turn in progress alone are over the target — or, with `allowDrop: false`, when every other rung together cannot fit. The model's capabilities (vision, snapshot page shape, rung knobs) come from the default table, then the tenant's `PUT /v1/settings/context` rule for the model, then this request's `capabilities`; the ones used are in `receipt.capabilities` and recorded for reproduction.",
    params: conversation,
    body: { schema: Q.ContextBody, required: true },
    responses: { 200: { description: 'The body and its receipt', schema: R.ContextAnswerSchema } },
    errors: [
      ...missing,
      'cannot_fit',
      'not_a_turn_boundary',
      'unknown_snapshot_shape',
      'snapshot_pages_over_limit',
      'unsupported_image_source',
      'heavy_work_busy',
    ],
    writes: true,
  },
  {
    method: 'get',
    path: `${CONV}/context/report`,
    operationId: 'contextReport',
    tag: 'context',
    auth: 'tenant',
    summary: 'What fills the window now, by kind, estimated and last measured; changes nothing',
    description:
      'The capability fields of the context body may be given as query parameters (`vision`, ' +
      '`snapshotShape` or `none`, `protectTokens`, `minElisionSavings`, `keepImages`, ' +
      "`maxSnapshotPages`), over the tenant's context settings; e.g. `vision=false` leaves " +
      'snapshot pages in force out of the estimate.',
    params: conversation,
    query: Q.ReportQuery,
    responses: { 200: { description: 'The report', schema: R.ContextReportSchema } },
    errors: [
      ...missing,
      'not_a_turn_boundary',
      'unknown_snapshot_shape',
      'snapshot_pages_over_limit',
      'cannot_fit',
      'unsupported_image_source',
      'heavy_work_busy',
    ],
  },
  {
    method: 'get',
    path: `${CONV}/compactions`,
    operationId: 'listCompactions',
    tag: 'context',
    auth: 'tenant',
    summary: 'Every compaction decision recorded, oldest first, with its status',
    params: conversation,
    responses: { 200: { description: 'The decisions', schema: R.CompactionList } },
    errors: missing,
  },
  {
    method: 'post',
    path: `${CONV}/compactions/{decisionId}/revoke`,
    operationId: 'revokeCompaction',
    tag: 'context',
    auth: 'tenant',
    summary: 'Undo a compaction decision: later contexts no longer apply it',
    description:
      'Appends `CompactionRevoked`. The next context leaves the decision out (its receipt says ' +
      'whether the cached prefix changed); contexts handed out before still reproduce byte for ' +
      'byte. Revoking a revoked decision appends nothing (`replayed: true`).',
    params: inConversation({ decisionId: z.string().min(1).max(200) }),
    body: { schema: Q.RevokeCompactionBody, required: false },
    responses: { 200: { description: 'Revoked', schema: R.CompactionRevokedAnswer } },
    errors: [...missing, 'compaction_not_found'],
    writes: true,
  },
  {
    method: 'get',
    path: `${CONV}/replay`,
    operationId: 'replay',
    tag: 'replay',
    auth: 'tenant',
    summary: 'The conversation as of its event at stream revision N',
    description:
      "Folds the conversation's events 0..N through the same projections and queries as the " +
      'live reads. `branch` is one page of the active branch (root → tip); `branch.next` is a ' +
      'cursor for the next page at the same revision (pass `revision` again). `404 ' +
      'revision_not_found` (with `lastRevision`) past the end.',
    params: conversation,
    query: Q.ReplayQuery,
    responses: { 200: { description: 'The state at N', schema: R.ReplayViewSchema } },
    errors: [...missing, 'revision_not_found', 'answer_too_large'],
  },
  {
    method: 'get',
    path: `${CONV}/contexts`,
    operationId: 'listContexts',
    tag: 'replay',
    auth: 'tenant',
    summary: 'The contexts handed out (their ContextAssembled receipts), oldest first, paged',
    params: conversation,
    query: Q.ContextsQuery,
    responses: { 200: { description: 'One page', schema: R.ContextsPage } },
    errors: missing,
  },
  {
    method: 'get',
    path: `${CONV}/contexts/{contextId}`,
    operationId: 'reproduceContext',
    tag: 'replay',
    auth: 'tenant',
    summary: 'Reproduce a context handed out earlier, byte for byte, and compare its hash',
    description:
      'Folds the log to the revision the context was built on, takes the recorded window, the ' +
      'decisions in force then plus the ones it added, and the recorded request, runs the ' +
      'ladder in replay mode (no new decision), re-renders snapshot pages from source, encodes ' +
      'and hashes. When `match` is false the answer carries `mismatch` (`code: ' +
      'context_mismatch`, a `reason`: `body_differs`, `snapshot_renderer_unavailable`, ' +
      '`rung_needed`, `window_differs`, `decisions_differ`, `unknown_request`, ' +
      '`reproduction_failed`). The status is 200 either way.',
    params: inConversation({ contextId: Id }),
    responses: { 200: { description: 'The reproduction', schema: R.ReproductionSchema } },
    errors: [...missing, 'context_not_found', 'answer_too_large'],
  },
  ...CONSOLE_ROUTES,
];

/** The tenant's read routes the admin reaches through `/v1/admin/tenants/{tenantId}/…`. */
const ADMIN_READABLE = new Set([
  'listConversations',
  'getConversation',
  'tree',
  'activeBranch',
  'getMessage',
  'listCheckpoints',
  'events',
  'export',
  'verifyConversation',
  'replay',
  'listContexts',
  'reproduceContext',
]);

/** Derived from the tenant routes, so they cannot drift; each read is audited first. */
export const ADMIN_TENANT_DATA_ROUTES: readonly RouteSpec[] = BASE_ROUTES.filter(
  (r) => r.method === 'get' && ADMIN_READABLE.has(r.operationId),
).map((r) => ({
  ...r,
  path: `/v1/admin/tenants/{tenantId}${r.path.slice('/v1'.length)}`,
  operationId: `admin${r.operationId[0].toUpperCase()}${r.operationId.slice(1)}`,
  tag: 'tenant data (admin)',
  auth: 'admin',
  summary: `As the tenant's own route, for the admin: ${r.summary[0].toLowerCase()}${r.summary.slice(1)}`,
  description:
    `The answer of \`GET ${r.path}\` for tenant \`tenantId\`, read with the admin key. The read ` +
    'is recorded first as an `AdminDataRead` event (actor `admin`, the route and the ' +
    "conversation id) in the tenant's `audit-<tenantId>.admin-reads` stream; a read whose record " +
    'cannot be written is not answered. A tenant key is refused (401).' +
    (r.description ? `\n\n${r.description}` : ''),
  params: (r.params ?? z.object({})).extend({ tenantId: Id }),
  errors: [...r.errors, 'tenant_not_found'],
}));

/** A route's own codes plus auth, body, storage and the few any request can meet. */
export const errorCodes = (route: RouteSpec): ProblemCode[] => {
  const codes = new Set<ProblemCode>([
    'internal_error',
    'validation_failed',
    'store_unavailable',
    // Refused by the HTTP edge before any route runs (header size, framing, timeouts, sockets).
    'headers_too_large',
    'malformed_header',
    'request_timeout',
    'too_many_connections',
  ]);
  if (route.params) codes.add('uri_too_long');
  if (route.auth !== 'none') codes.add('unauthorized');
  if (route.auth === 'admin') codes.add('forbidden');
  if (route.body)
    [
      'malformed_json',
      'invalid_utf8',
      'json_too_deep',
      'field_too_large',
      'payload_too_large',
      'unsupported_media_type',
    ].forEach((c) => codes.add(c as ProblemCode));
  if (route.idempotent) {
    codes.add('idempotency_key_reused');
    codes.add('idempotency_in_progress');
  }
  if (route.writes)
    ['concurrency_conflict', 'insufficient_storage'].forEach((c) => codes.add(c as ProblemCode));
  if (route.auth === 'tenant') {
    codes.add('projection_lagging');
    codes.add('read_models_unavailable');
  }
  if (route.auth === 'tenant') codes.add('projection_lagging');
  if (route.auth === 'tenant') codes.add('rate_limited');
  for (const c of route.errors) codes.add(c);
  return [...codes];
};

/** Every route of the API: the table above and the admin's reads derived from it. */
export const ROUTES: readonly RouteSpec[] = [...BASE_ROUTES, ...ADMIN_TENANT_DATA_ROUTES];
