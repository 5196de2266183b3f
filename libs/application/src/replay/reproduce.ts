// Reproduces a past context in replay mode (nothing new decided); any inexactness is a mismatch.
import { createHash } from 'node:crypto';
import {
  assembleContext,
  type AssembleInput,
  type AssembleResult,
  PROVIDER_NAMES,
  type ProviderName,
  type RenderPages,
  ReplayDivergenceError,
  toModelCapabilities,
  type ToolDefinition,
} from '@arbor/context';
import {
  type BranchSummary,
  type CompactionDecision,
  type EventDataOf,
  type Message,
  withBranchSummaries,
} from '@arbor/domain';
import { type AppErrorValue } from '../errors';

export type ContextAssembledData = EventDataOf<'ContextAssembled'>;

export interface ContextRecord {
  revision: number;
  data: ContextAssembledData;
  newDecisions: readonly CompactionDecision[];
}

export type MismatchReason =
  | 'body_differs'
  | 'snapshot_renderer_unavailable'
  | 'rung_needed'
  | 'window_differs'
  | 'decisions_differ'
  | 'unknown_request'
  | 'reproduction_failed';

export type ReproductionOutcome =
  | {
      ok: true;
      body: unknown;
      appliedIds: string[];
      estimatedTokens: number;
      rawTokens: number;
      prefixHash: string;
    }
  | { ok: false; reason: MismatchReason; detail: string; extra?: Record<string, unknown> };

export interface Check {
  name: string;
  recorded: unknown;
  reproduced: unknown;
  equal: boolean;
}

export interface ContextReproduction {
  contextId: string;
  revision: number;
  basedOnRevision: number;
  provider: string;
  model: string;
  body: unknown;
  bodyHash: string | null;
  recordedHash: string;
  match: boolean;
  checks: Check[];
  mismatch?: AppErrorValue;
}

/** The hash the context endpoint records: sha256 of the body's JSON text. */
export const hashBody = (body: unknown): string =>
  createHash('sha256').update(JSON.stringify(body)).digest('hex');

const check = (name: string, recorded: unknown, reproduced: unknown): Check => ({
  name,
  recorded,
  reproduced,
  equal: JSON.stringify(recorded) === JSON.stringify(reproduced),
});

export const judgeReproduction = (
  record: ContextRecord,
  outcome: ReproductionOutcome,
  extraChecks: readonly Check[] = [],
): ContextReproduction => {
  const d = record.data;
  const base = {
    contextId: d.contextId,
    revision: record.revision,
    basedOnRevision: record.revision - record.newDecisions.length - 1,
    provider: d.request.provider,
    model: d.request.model,
    recordedHash: d.bodyHash,
  };
  if (!outcome.ok) {
    return {
      ...base,
      body: null,
      bodyHash: null,
      match: false,
      checks: [...extraChecks],
      mismatch: {
        code: 'context_mismatch',
        detail: outcome.detail,
        reason: outcome.reason,
        contextId: d.contextId,
        ...(outcome.extra ?? {}),
      },
    };
  }
  const bodyHash = hashBody(outcome.body);
  const checks = [
    ...extraChecks,
    check('decisionIds', d.decisionIds, outcome.appliedIds),
    check('estimatedTokens', d.estimatedTokens, outcome.estimatedTokens),
    check('rawTokens', d.rawTokens, outcome.rawTokens),
    ...(record.newDecisions.length === 0
      ? [check('prefixHash', d.prefixHash, outcome.prefixHash)]
      : []),
  ];
  const match = bodyHash === d.bodyHash;
  if (match) return { ...base, body: outcome.body, bodyHash, match, checks };
  const differing = checks.filter((c) => !c.equal).map((c) => c.name);
  return {
    ...base,
    body: outcome.body,
    bodyHash,
    match,
    checks,
    mismatch: {
      code: 'context_mismatch',
      detail:
        `the reproduced body hashes to ${bodyHash}, the recorded one to ${d.bodyHash}` +
        (differing.length > 0 ? `; also differing: ${differing.join(', ')}` : ''),
      reason: 'body_differs',
      contextId: d.contextId,
      differing,
    },
  };
};

const fail = (
  reason: MismatchReason,
  detail: string,
  extra?: Record<string, unknown>,
): ReproductionOutcome => ({ ok: false, reason, detail, ...(extra ? { extra } : {}) });

const isProvider = (p: string): p is ProviderName =>
  (PROVIDER_NAMES as readonly string[]).includes(p);

export interface ReproduceArgs {
  conversationId: string;
  record: ContextRecord;
  decisionsBefore: readonly CompactionDecision[];
  window: readonly Message[] | { problem: string };
  renderPages: RenderPages | null;
  branchSummaries?: readonly BranchSummary[];
  assemble?: (input: AssembleInput) => Promise<AssembleResult>;
}

export const reproduceOutcome = async (args: ReproduceArgs): Promise<ReproductionOutcome> => {
  const { record } = args;
  const d = record.data;
  const newIds = record.newDecisions.map((x) => x.id);
  if (JSON.stringify(newIds) !== JSON.stringify(d.newDecisionIds)) {
    return fail(
      'decisions_differ',
      'the CompactionApplied events before the receipt are not the decisions it names',
      { named: d.newDecisionIds, found: newIds },
    );
  }
  if ('problem' in args.window) return fail('window_differs', args.window.problem);
  const request = d.request;
  let window: readonly Message[] = args.window;
  if (request.branchSummaries !== undefined && request.branchSummaries.length > 0) {
    const carried = withBranchSummaries(
      window,
      args.branchSummaries ?? [],
      request.branchSummaries,
    );
    if (carried.placed.length !== request.branchSummaries.length) {
      return fail('window_differs', 'a branch summary the context carried is not in the log', {
        recorded: request.branchSummaries,
      });
    }
    window = carried.messages;
  }
  if (!isProvider(request.provider)) {
    return fail('unknown_request', `provider ${request.provider} is not one Arbor encodes`);
  }
  // A snapshot the record did not apply was left out then (no renderer); leaving it out keeps that.
  const applied = new Set(d.decisionIds);
  const decisions = [...args.decisionsBefore, ...record.newDecisions].filter(
    (x) => x.rung !== 'snapshot' || applied.has(x.id),
  );
  const byId = new Map(decisions.map((x) => [x.id, x]));
  const unknown = d.decisionIds.filter((id) => !byId.has(id));
  if (unknown.length > 0) {
    return fail('decisions_differ', 'the receipt names decisions never recorded before it', {
      unknown,
    });
  }
  const snapshots = d.decisionIds.filter((id) => byId.get(id)?.rung === 'snapshot');
  if (args.renderPages === null && snapshots.length > 0) {
    return fail(
      'snapshot_renderer_unavailable',
      `cannot reproduce: ${snapshots.length} snapshot decision(s) were applied, and no page ` +
        'renderer is configured to render their pages again from source',
      { snapshotDecisionIds: snapshots },
    );
  }
  try {
    // The capabilities recorded then, not the tenant's settings now (absent on old records: default).
    const capabilities =
      request.capabilities !== undefined ? toModelCapabilities(request.capabilities) : undefined;
    const assemble = args.assemble ?? assembleContext;
    const result = await assemble({
      conversationId: args.conversationId,
      provider: request.provider,
      model: request.model,
      messages: [...window, ...(request.append ?? [])],
      decisions,
      budgetTokens: request.budgetTokens,
      ...(request.system !== null ? { system: request.system } : {}),
      ...(request.tools.length > 0 ? { tools: request.tools as ToolDefinition[] } : {}),
      ...(request.maxTokens !== null ? { maxTokens: request.maxTokens } : {}),
      ...(request.overflow !== null ? { overflow: request.overflow } : {}),
      mode: request.mode,
      calibration: d.calibration,
      ...(capabilities !== undefined ? { capabilities } : {}),
      ...(args.renderPages !== null ? { renderPages: args.renderPages } : {}),
      newId: () => {
        throw new Error('a reproduction must not decide anything');
      },
      replayOnly: true,
      // Contexts recorded before encoding 2 carry no version: they were built with version 1.
      encoding: request.encoding === 2 ? 2 : 1,
      ...(request.cache != null
        ? {
            cache: { key: request.cache.key },
            ...(request.cache.previousTip !== null
              ? { previousTipId: request.cache.previousTip }
              : {}),
          }
        : {}),
    });
    const notApplied = new Set(result.receipt.notApplied.map((n) => n.decisionId));
    // As the receipt counts them: even a decision a later rung superseded built the context.
    const made = new Set(newIds);
    return {
      ok: true,
      body: result.body,
      appliedIds: decisions.filter((x) => made.has(x.id) || !notApplied.has(x.id)).map((x) => x.id),
      estimatedTokens: result.receipt.estimatedTokens,
      rawTokens: result.receipt.rawTokens,
      prefixHash: result.receipt.prefixHash,
    };
  } catch (e) {
    if (e instanceof ReplayDivergenceError) {
      return fail('rung_needed', e.message, {
        estimatedTokens: e.estimatedTokens,
        targetTokens: e.targetTokens,
      });
    }
    return fail('reproduction_failed', e instanceof Error ? e.message : String(e));
  }
};

export const reproduceContext = async (
  args: ReproduceArgs,
  extraChecks: readonly Check[] = [],
): Promise<ContextReproduction> =>
  judgeReproduction(args.record, await reproduceOutcome(args), extraChecks);
