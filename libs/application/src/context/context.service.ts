import { inSpan } from '../tracing/tracing';
import { createHash, randomUUID } from 'node:crypto';
import { MetricsService } from '../metrics/metrics.service';
import { Inject, Injectable } from '@nestjs/common';
import {
  BODY_ENCODING,
  CannotFitError,
  calibrationFactor,
  type CapabilityOverrides,
  estimateMessageTokens,
  UnsupportedImageSourceError,
  layerCapabilities,
  type LayeredCapabilities,
  maxImagesFor,
  parseOverflowError,
  type ProviderName,
  type ToolDefinition,
  UnknownSnapshotShapeError,
} from '@arbor/context';
import {
  type ConversationState,
  type Message,
  type MessageInput,
  checkTurn,
  compactionsInForce,
  type PlacedBranchSummary,
  withBranchSummaries,
} from '@arbor/domain';
import { conversationStream } from '@arbor/event-store';
import { type Caller } from '../caller';
import { ARBOR_CONFIG, type ArborConfig } from '../config/config';
import { ConversationWriter } from '../conversations/commands';
import { ConversationRepository } from '../conversations/conversation.repository';
import { ReadModelsService } from '../conversations/read-models.service';
import { AppError, conversationNotFound } from '../errors';
import { RateLimiterService } from '../rate-limit/rate-limiter.service';
import { TenantDirectoryService } from '../tenants/tenant-directory.service';
import { type AssemblyDone, type AssemblyInput, errorOf } from './assembly';
import { AssemblyPool } from './assembly-pool';
import { HeavyWorkGate } from './heavy-work';
import { LiveWindowCache } from './live-window';

export interface ContextRequest {
  provider: ProviderName;
  model: string;
  budgetTokens: number;
  system?: string;
  tools?: ToolDefinition[];
  /** Messages after the tip for this call only (validated by the edge as messages). */
  append?: MessageInput[];
  maxTokens?: number;
  overflow?: { measuredTokens: number; limitTokens: number } | { error: string };
  mode: 'auto' | 'shake' | 'snapshot' | 'compact';
  /** False: no drop rung (`cannot_fit` instead). Default true. */
  allowDrop?: boolean;
  /** This request's capability overrides, over the tenant's settings. */
  capabilities?: CapabilityOverrides;
  /** False: no prompt-cache hints (no `cache_control`, no `prompt_cache_key`). Default true. */
  cache?: boolean;
}

/** Messages per read of the live window: a page parses in a few ms, then the loop is free. */
const WINDOW_PAGE = 250;

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

/**
 * A tip on an assistant message whose tool calls are not answered yet (a tip moved mid-turn)
 * leaves nothing to ask the model: the next thing the conversation needs is the tool results.
 * Said plainly, instead of assembling a body no provider accepts.
 */
const refuseOpenToolCalls = (messages: readonly Message[]): void => {
  const last = messages[messages.length - 1];
  if (last?.role === 'assistant' && last.content.some((b) => b.type === 'tool_use')) {
    throw new AppError(
      'not_a_turn_boundary',
      'The tip is an assistant message whose tool calls are not answered yet: commit the tool results (or move the tip) before asking for a context.',
      { messageId: last.id },
    );
  }
};

/**
 * The request's `append` as messages after the window: each continues the one before (the turn
 * rules, except that it need not end with an answer — it is the turn in progress), ids new to
 * the window. Not history: nothing of it is stored but the receipt's copy.
 */
const appendedMessages = (
  append: readonly MessageInput[],
  window: readonly Message[],
  now: string,
): Message[] => {
  if (append.length === 0) return [];
  const ids = new Set(window.map((m) => m.id));
  const violations = checkTurn(append, {
    atRoot: window.length === 0,
    // After a tip on tool results the assistant continues: an append opens with it.
    continues: window[window.length - 1]?.role === 'user',
    idExists: (id) => ids.has(id),
    path: 'body.append',
  }).filter((v) => v.code !== 'must_end_with_assistant');
  if (violations.length > 0) {
    throw new AppError(
      'validation_failed',
      violations.map((v) => `${v.path}: ${v.message}`).join('; '),
      { errors: violations },
    );
  }
  let parentId = window[window.length - 1]?.id ?? null;
  return append.map((input) => {
    const { id, ...rest } = input;
    const message: Message = {
      id: id ?? randomUUID(),
      parentId,
      ...rest,
      turnId: 'append',
      createdAt: now,
    };
    parentId = message.id;
    return message;
  });
};

/**
 * Builds the next request for a conversation: the live window of the active branch, the
 * compaction decisions in force, the ladder as far as needed, then one append that records the
 * new decisions and the receipt (`ContextAssembled`), so the same context can be reproduced.
 */
@Injectable()
export class ContextService {
  /** Live windows of recent calls: a call whose tip did not move reads nothing again. */
  private windows = new LiveWindowCache();

  /**
   * After an erasure: every in-process cache that may hold content (token stats and renderings,
   * rendered pages — the pool's and its workers' —, live windows) starts empty. All of them, not just the erased conversation's
   * entries: the page cache is keyed by source text, not by conversation, and an erasure is rare
   * enough that refilling the caches costs less than tracking what each entry came from.
   */
  forgetCaches(): void {
    this.pool.forgetCaches();
    this.windows = new LiveWindowCache();
  }

  constructor(
    private readonly repository: ConversationRepository,
    private readonly writer: ConversationWriter,
    private readonly readModels: ReadModelsService,
    @Inject(ARBOR_CONFIG) private readonly config: ArborConfig,
    private readonly pool: AssemblyPool,
    private readonly gate: HeavyWorkGate,
    private readonly limiter: RateLimiterService,
    private readonly directory: TenantDirectoryService,
    private readonly metrics: MetricsService,
  ) {}

  /**
   * The model's capabilities: the default table, the tenant's rule for the model (longest
   * prefix), this request's overrides. Resolved once here, handed to the ladder whole, recorded.
   */
  private async capabilities(
    caller: Caller,
    request: ContextRequest,
  ): Promise<LayeredCapabilities> {
    // A setting changed through another replica a moment ago applies here too.
    await this.directory.fresh();
    const table = this.directory.contextSettings(caller.tenantId).models;
    const bound = maxImagesFor(request.provider, request.model);
    const asked = request.capabilities?.maxSnapshotPages;
    if (asked !== undefined && asked > bound) {
      throw new AppError(
        'snapshot_pages_over_limit',
        `capabilities.maxSnapshotPages: ${asked} is over the ${bound} images ${request.provider} ` +
          `takes in one request for ${request.model}`,
        { provider: request.provider, model: request.model, maxSnapshotPages: asked, limit: bound },
      );
    }
    try {
      const layered = layerCapabilities(
        request.provider,
        request.model,
        table,
        request.capabilities,
      );
      // A tenant rule names no provider: above this provider's bound it gets the bound.
      if (layered.capabilities.maxSnapshotPages <= bound) return layered;
      return {
        ...layered,
        capabilities: { ...layered.capabilities, maxSnapshotPages: bound },
        record: { ...layered.record, maxSnapshotPages: bound },
      };
    } catch (e) {
      if (e instanceof UnknownSnapshotShapeError) {
        throw new AppError('unknown_snapshot_shape', e.message, { shape: e.shape });
      }
      throw e;
    }
  }

  /** What the receipt says about the capabilities: the values used and where they came from. */
  private static receiptCapabilities(layered: LayeredCapabilities, request: ContextRequest) {
    return {
      ...layered.record,
      tenantRule: layered.rule,
      requestOverrides: Object.keys(request.capabilities ?? {}).sort(),
    };
  }

  /** The live window: the active branch from the resume cut (if any) to the tip. */
  private async liveWindow(
    caller: Caller,
    state: ConversationState,
    conversationId: string,
  ): Promise<readonly Message[]> {
    const queries = await this.readModels.upToDateWith(
      conversationStream(caller.tenantId, conversationId),
    );
    const cut = state.resume !== null && state.resume.tip === state.tip ? state.resume.cutAt : null;
    const from =
      cut === null ? 0 : ((await queries.depthOf(caller.tenantId, conversationId, cut)) ?? 0);
    const read = async (fromDepth: number): Promise<Message[]> => {
      const messages: Message[] = [];
      for (let depth: number | null = fromDepth; depth !== null;) {
        const page = await queries.activeBranchPage(
          caller.tenantId,
          conversationId,
          depth,
          WINDOW_PAGE,
        );
        messages.push(...page.items);
        depth = page.nextDepth;
        // A long window is read in pages, and other requests get the loop between two.
        if (depth !== null) await new Promise((r) => setImmediate(r));
      }
      return messages;
    };
    const key = `${caller.tenantId}/${conversationId}`;
    const messages = await this.windows.window(key, from, state.tip, read);
    if ((messages[messages.length - 1]?.id ?? null) !== state.tip) {
      throw new AppError(
        'projection_lagging',
        'The read model has not reached the tip yet; retry.',
      );
    }
    return messages;
  }

  private overflowOf(
    request: ContextRequest,
  ): { measuredTokens: number; limitTokens: number } | undefined {
    const o = request.overflow;
    if (o === undefined || !('error' in o)) return o;
    const parsed = parseOverflowError(o.error);
    if (parsed === null) {
      throw new AppError(
        'validation_failed',
        'body.overflow.error: not a provider "too long" error Arbor recognises; send measuredTokens and limitTokens instead',
        {
          errors: [
            {
              path: 'body.overflow.error',
              code: 'unrecognized_overflow',
              message: 'unrecognized provider error text',
            },
          ],
        },
      );
    }
    return { measuredTokens: parsed.measuredTokens, limitTokens: parsed.limitTokens };
  }

  /**
   * The prompt-cache settings of a request: the key of the conversation's fork lineage (hashed:
   * a body never names a conversation) and the previous context's tip when it is in this window.
   */
  private static cacheOf(
    caller: Caller,
    conversationId: string,
    state: ConversationState,
    messages: readonly Message[],
    request: ContextRequest,
  ): { key: string; previousTip: string | null } | null {
    if (request.cache === false) return null;
    const lineage = state.lineage ?? conversationId;
    const key = `arbor-${sha256(`${caller.tenantId}/${lineage}`).slice(0, 40)}`;
    // The end of the previous context's history; asked again at the same tip, the one before
    // it, so the same request gives the same body.
    const tip = state.lastContextTip === state.tip ? state.priorContextTip : state.lastContextTip;
    const previousTip = tip !== null && messages.some((m) => m.id === tip) ? tip : null;
    return { key, previousTip };
  }

  /**
   * Asked again at the same tip, the last context ended at this tip: the provider has just read
   * that prefix, so the receipt expects it cached (the body still builds on `previousTip`).
   */
  private static lastTipOf(state: ConversationState, messages: readonly Message[]): string | null {
    const tip = state.lastContextTip;
    return tip !== null && tip === state.tip && messages.some((m) => m.id === tip) ? tip : null;
  }

  private input(
    caller: Caller,
    conversationId: string,
    state: ConversationState,
    messages: readonly Message[],
    request: ContextRequest,
    layered: LayeredCapabilities,
  ): AssemblyInput {
    const samples = state.calibration.filter((s) => s.provider === request.provider);
    const cache = ContextService.cacheOf(caller, conversationId, state, messages, request);
    const lastTip = ContextService.lastTipOf(state, messages);
    return {
      ...(cache !== null
        ? {
            cache: { key: cache.key, ...(lastTip !== null ? { lastTipId: lastTip } : {}) },
            ...(cache.previousTip !== null ? { previousTipId: cache.previousTip } : {}),
          }
        : {}),
      conversationId,
      provider: request.provider,
      model: request.model,
      messages,
      decisions: compactionsInForce(state),
      ...(state.revokedSinceContext.length > 0
        ? {
            revoked: {
              decisionIds: state.revokedSinceContext,
              previousDecisions: state.compactions.filter(
                (d) =>
                  !state.revokedCompactions.includes(d.id) ||
                  state.revokedSinceContext.includes(d.id),
              ),
            },
          }
        : {}),
      budgetTokens: request.budgetTokens,
      system: request.system,
      tools: request.tools,
      maxTokens: request.maxTokens,
      mode: request.mode,
      ...(request.allowDrop === false ? { allowDrop: false } : {}),
      overflow: this.overflowOf(request),
      calibration: calibrationFactor(samples),
      capabilities: layered.capabilities,
      // Conversation ids are unique per tenant only: the caches must not mix two tenants' "c1".
      cacheScope: `${caller.tenantId}/${conversationId}`,
    };
  }

  /** The ladder, in the worker pool (`AssemblyPool`); its errors as the application's. */
  private async assemble(input: AssemblyInput): Promise<AssemblyDone> {
    try {
      const outcome = await this.pool.run(input);
      if (!outcome.ok) throw errorOf(outcome.failure);
      return outcome;
    } catch (e) {
      if (e instanceof CannotFitError) {
        throw new AppError('cannot_fit', e.message, {
          estimatedTokens: e.estimatedTokens,
          targetTokens: e.targetTokens,
          budgetTokens: e.budgetTokens,
          systemTokens: e.floor.systemTokens,
          toolsTokens: e.floor.toolsTokens,
          protectedTailTokens: e.floor.protectedTailTokens,
          rungs: e.rungsTried,
        });
      }
      if (e instanceof UnsupportedImageSourceError) {
        throw new AppError('unsupported_image_source', e.message, {
          provider: e.provider,
          messageId: e.messageId,
          path: e.path,
          source: e.source,
        });
      }
      throw e;
    }
  }

  /** A context for the conversation (span `arbor.context.assemble` when traces are on). */
  build(caller: Caller, conversationId: string, request: ContextRequest) {
    const attributes = {
      'arbor.tenant_id': caller.tenantId,
      'arbor.conversation_id': conversationId,
    };
    return inSpan('arbor.context.assemble', attributes, () =>
      this.gate.run(caller.tenantId, () => this.assembleFor(caller, conversationId, request)),
    );
  }

  /**
   * The rate-limit tokens a call takes beyond the request's own one: one per
   * `ARBOR_CONTEXT_CHARGE_BYTES` of history assembled (whole multiples), one per page rendered.
   */
  private async charge(caller: Caller, done: AssemblyDone): Promise<void> {
    const cost =
      Math.floor(done.sourceBytes / this.config.heavy.contextChargeBytes) + done.renderedPages;
    await this.limiter.charge(caller.tenantId, cost);
  }

  private async assembleFor(caller: Caller, conversationId: string, request: ContextRequest) {
    const state = await this.repository.load(caller.tenantId, conversationId);
    if (state.status === 'none') throw conversationNotFound();
    const live = await this.liveWindow(caller, state, conversationId);
    // The branch summaries made for this branch, right after their branch points.
    const carried = withBranchSummaries(live, state.branchSummaries);
    const history = carried.messages;
    const appended = appendedMessages(request.append ?? [], history, new Date().toISOString());
    const messages = [...history, ...appended];
    refuseOpenToolCalls(messages);
    const layered = await this.capabilities(caller, request);
    const input = this.input(caller, conversationId, state, messages, request, layered);
    const done = await this.assemble(input);
    const { body, receipt, newDecisions } = done.result;
    await this.charge(caller, done);
    const contextId = randomUUID();
    const overflow = input.overflow;
    const { result } = await this.writer.write(caller, conversationId, {
      type: 'recordContext',
      decisions: newDecisions,
      assembled: {
        contextId,
        request: {
          provider: request.provider,
          model: request.model,
          budgetTokens: request.budgetTokens,
          mode: request.mode,
          system: request.system ?? null,
          tools: request.tools ?? [],
          maxTokens: request.maxTokens ?? null,
          overflow: overflow ?? null,
          capabilities: layered.record,
          encoding: BODY_ENCODING,
          cache: ContextService.cacheOf(caller, conversationId, state, messages, request),
          ...(appended.length > 0 ? { append: appended } : {}),
          ...(carried.placed.length > 0
            ? {
                branchSummaries: carried.placed.map(({ summaryId, afterId }) => ({
                  summaryId,
                  afterId,
                })),
              }
            : {}),
        },
        tip: state.tip,
        cutAt: history[0]?.id ?? null,
        decisionIds: [
          ...compactionsInForce(state).map((d) => d.id),
          ...newDecisions.map((d) => d.id),
        ].filter((id) => !receipt.notApplied.some((n) => n.decisionId === id)),
        newDecisionIds: newDecisions.map((d) => d.id),
        bodyHash: done.bodyHash,
        prefixHash: receipt.prefixHash,
        estimatedTokens: receipt.estimatedTokens,
        rawTokens: receipt.rawTokens,
        calibration: receipt.calibration,
        sections: receipt.sections,
        // The request that overflowed is the last one handed out: pair the provider's count
        // with our raw estimate of it (or of this window, when none is on record).
        overflowSample: overflow
          ? {
              estimated: state.pendingContext?.estimatedTokens ?? receipt.rawTokens,
              measured: overflow.measuredTokens,
            }
          : null,
        receiptVersion: 2,
        rungs: receipt.rungs.map((r) => ({
          rung: r.rung,
          applied: r.applied,
          trigger: r.trigger,
          reason: r.reason,
          tokensBefore: r.tokensBefore,
          tokensAfter: r.tokensAfter,
          decisionIds: r.decisionIds,
        })),
      },
    });
    this.metrics.countRungs(receipt.rungs);
    return {
      contextId,
      body,
      receipt: {
        ...receipt,
        capabilities: ContextService.receiptCapabilities(layered, request),
        ...(carried.placed.length > 0
          ? { branchSummaries: ContextService.carriedSummaries(carried.placed, history, request) }
          : {}),
      },
      revision: result.revision,
      // The tip it was built on: pass it as the next commit's expectedTip.
      tip: state.tip,
    };
  }

  /** The receipt's branch summaries: where each went, and what its message counts. */
  private static carriedSummaries(
    placed: readonly PlacedBranchSummary[],
    history: readonly Message[],
    request: ContextRequest,
  ) {
    return placed.map((p) => {
      const message = history.find((m) => m.id === p.messageId);
      return {
        summaryId: p.summaryId,
        afterMessageId: p.afterId,
        messageId: p.messageId,
        tokens:
          message === undefined
            ? 0
            : estimateMessageTokens(message, { provider: request.provider, model: request.model }),
      };
    });
  }

  /** What fills the window now, by kind; records nothing and applies no new rung. */
  async report(
    caller: Caller,
    conversationId: string,
    provider: ProviderName,
    model: string,
    overrides: CapabilityOverrides = {},
  ) {
    const state = await this.repository.load(caller.tenantId, conversationId);
    if (state.status === 'none') throw conversationNotFound();
    const messages = await this.liveWindow(caller, state, conversationId);
    refuseOpenToolCalls(messages);
    const samples = state.calibration.filter((s) => s.provider === provider);
    const last = samples[samples.length - 1] ?? null;
    const request: ContextRequest = {
      provider,
      model,
      budgetTokens: 10_000_000,
      mode: 'auto',
      capabilities: overrides,
    };
    const layered = await this.capabilities(caller, request);
    const capabilities = ContextService.receiptCapabilities(layered, request);
    const cache = cacheUse(messages);
    if (messages.length === 0) {
      return {
        provider,
        model,
        capabilities,
        messages: 0,
        estimated: null,
        lastMeasured: last,
        calibration: calibrationFactor(samples),
        cache,
      };
    }
    // The ladder runs as a context call would (a budget of 10M leaves only what a provider
    // limit forces, e.g. stripping an image over its size): the report records none of it, it
    // names the rungs a context call would apply now.
    const done = await this.gate.run(caller.tenantId, () =>
      this.assemble(this.input(caller, conversationId, state, messages, request, layered)),
    );
    await this.charge(caller, done);
    const { receipt } = done.result;
    return {
      provider,
      model,
      capabilities,
      messages: messages.length,
      decisionsInForce: compactionsInForce(state).length - receipt.notApplied.length,
      wouldApply: receipt.rungs.filter((r) => r.applied).map((r) => r.rung),
      estimated: {
        total: receipt.estimatedTokens,
        raw: receipt.rawTokens,
        sections: receipt.sections,
      },
      calibration: receipt.calibration,
      lastMeasured: last,
      cache,
    };
  }
}

/**
 * Prompt-cache use over the window's turns, from the usage the provider reported on each
 * assistant message (uncached input, cache reads, cache writes).
 */
export function cacheUse(messages: readonly Message[]) {
  let turns = 0;
  let input = 0;
  let read = 0;
  let write = 0;
  for (const m of messages) {
    const u = m.usage;
    if (m.role !== 'assistant' || u === undefined) continue;
    if (u.input_tokens === undefined && u.cache_read_input_tokens === undefined) continue;
    turns++;
    read += u.cache_read_input_tokens ?? 0;
    write += u.cache_creation_input_tokens ?? 0;
    input +=
      (u.input_tokens ?? 0) +
      (u.cache_read_input_tokens ?? 0) +
      (u.cache_creation_input_tokens ?? 0);
  }
  return {
    turns,
    inputTokens: input,
    cacheReadTokens: read,
    cacheWriteTokens: write,
    hitRate: input > 0 ? Math.round((read / input) * 10_000) / 10_000 : null,
  };
}
