import { Inject, Injectable, Logger } from '@nestjs/common';
import { type AssembleInput, type AssembleResult, type RenderPages } from '@arbor/context';
import {
  type CompactionDecision,
  compactionsInForce,
  type ContextCapabilitiesRecord,
  type EventDataOf,
  type RecordedRung,
} from '@arbor/domain';
import {
  conversationStream,
  type EventStore,
  type RecordedEvent,
  StreamNotFoundError,
} from '@arbor/event-store';
import { type Caller } from '../caller';
import { assemblyInputOf, errorOf } from '../context/assembly';
import { AssemblyPool } from '../context/assembly-pool';
import { RENDER_PAGES } from '../context/context.providers';
import { PROJECTIONS, ReadModelsService } from '../conversations/read-models.service';
import { AppError, conversationNotFound } from '../errors';
import { EVENT_STORE } from '../store/store.provider';
import { createReplayFold, type ReplayFold } from './replay-fold';
import { readBranch, type ReplayAnswer, replayAnswer, windowCut } from './replay-view';
import {
  type Check,
  type ContextRecord,
  type ContextReproduction,
  reproduceContext,
} from './reproduce';

const CHUNK = 1000;

export interface ContextSummary {
  contextId: string;
  revision: number;
  timestamp: string;
  provider: string;
  model: string;
  mode: string;
  budgetTokens: number;
  tip: string | null;
  cutAt: string | null;
  bodyHash: string;
  estimatedTokens: number;
  decisionIds: readonly string[];
  newDecisionIds: readonly string[];
  capabilities: ContextCapabilitiesRecord | null;
  rungs: readonly RecordedRung[] | null;
}

const isType = <T extends 'ContextAssembled' | 'CompactionApplied' | 'ConversationForked'>(
  e: RecordedEvent,
  type: T,
): e is RecordedEvent<T, EventDataOf<T>> => e.type === type;

const notFound = () => conversationNotFound();

@Injectable()
export class ReplayService {
  private readonly logger = new Logger('Replay');

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly readModels: ReadModelsService,
    @Inject(RENDER_PAGES) private readonly renderPages: RenderPages | null,
    private readonly pool: AssemblyPool,
  ) {}

  private assembler(tenantId: string, conversationId: string) {
    return async (input: AssembleInput): Promise<AssembleResult> => {
      const outcome = await this.pool.run({
        ...assemblyInputOf(input),
        cacheScope: `${tenantId}/${conversationId}`,
      });
      if (!outcome.ok) throw errorOf(outcome.failure);
      return outcome.result;
    };
  }

  private async *read(
    stream: string,
    from: number,
    to = Infinity,
  ): AsyncGenerator<RecordedEvent[]> {
    for (let next = from; next <= to;) {
      let chunk: RecordedEvent[];
      try {
        chunk = await this.store.readStream(stream, {
          fromRevision: BigInt(next),
          maxCount: Math.min(CHUNK, to - next + 1),
        });
      } catch (e) {
        if (e instanceof StreamNotFoundError) throw notFound();
        throw e;
      }
      if (chunk.length === 0) return;
      yield chunk;
      next = Number(chunk[chunk.length - 1].revision) + 1;
    }
  }

  private async eventAt(stream: string, revision: number): Promise<RecordedEvent> {
    try {
      const [event] = await this.store.readStream(stream, {
        fromRevision: BigInt(revision),
        maxCount: 1,
      });
      if (event !== undefined) return event;
      const [last] = await this.store.readStream(stream, {
        direction: 'backwards',
        fromRevision: 'end',
        maxCount: 1,
      });
      throw new AppError(
        'revision_not_found',
        `revision ${revision} is past the end of the conversation (last revision ${String(last?.revision ?? -1)})`,
        { revision, lastRevision: last === undefined ? -1 : Number(last.revision) },
      );
    } catch (e) {
      if (e instanceof StreamNotFoundError) throw notFound();
      throw e;
    }
  }

  private async forkStarts(tenantId: string, forkIds: Iterable<string>): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    for (const forkId of forkIds) {
      try {
        const [first] = await this.store.readStream(conversationStream(tenantId, forkId), {
          maxCount: 1,
        });
        if (first?.type === 'ConversationStarted') out.push(first);
      } catch (e) {
        if (!(e instanceof StreamNotFoundError)) throw e;
      }
    }
    return out;
  }

  async replay(
    caller: Caller,
    id: string,
    revision: number,
    page: { fromDepth: number; limit: number },
  ): Promise<ReplayAnswer> {
    const stream = conversationStream(caller.tenantId, id);
    const at = await this.eventAt(stream, revision);
    // Forks from their own streams' first event, as on the live side (back-reference or not).
    const live = await (
      await this.readModels.consistentFor(caller.keyId)
    ).getConversation(caller.tenantId, id);
    const known = new Set(live?.forks.map((f) => f.conversationId) ?? []);
    const fold = createReplayFold(PROJECTIONS);
    try {
      fold.addForeign(await this.forkStarts(caller.tenantId, known));
      let lastContext: ReplayAnswer['lastContext'] = null;
      for await (const chunk of this.read(stream, 0, revision)) {
        const named = chunk
          .filter((e) => isType(e, 'ConversationForked'))
          .map((e) => (e.data as EventDataOf<'ConversationForked'>).forkConversationId)
          .filter((f) => !known.has(f));
        named.forEach((f) => known.add(f));
        fold.addForeign(await this.forkStarts(caller.tenantId, named));
        fold.apply(chunk);
        for (const e of chunk) {
          if (isType(e, 'ContextAssembled')) {
            lastContext = { contextId: e.data.contextId, revision: Number(e.revision) };
          }
        }
      }
      const last = fold.last();
      if (last === null || last.revision !== at.revision) throw notFound();
      // Awaited here: the fold's database closes in `finally`.
      return await replayAnswer({
        tenantId: caller.tenantId,
        conversationId: id,
        event: {
          revision,
          type: at.type,
          timestamp: at.metadata.timestamp,
        },
        queries: fold.queries,
        state: fold.state(),
        page,
        lastContext,
      });
    } finally {
      fold.close();
    }
  }

  async listContexts(
    caller: Caller,
    id: string,
    fromRevision: number,
    limit: number,
  ): Promise<{ items: ContextSummary[]; nextAt: number | null }> {
    const items: ContextSummary[] = [];
    for await (const chunk of this.read(conversationStream(caller.tenantId, id), fromRevision)) {
      for (const e of chunk) {
        if (!isType(e, 'ContextAssembled')) continue;
        if (items.length === limit) return { items, nextAt: Number(e.revision) };
        const d = e.data;
        items.push({
          contextId: d.contextId,
          revision: Number(e.revision),
          timestamp: e.metadata.timestamp,
          provider: d.request.provider,
          model: d.request.model,
          mode: d.request.mode,
          budgetTokens: d.request.budgetTokens,
          tip: d.tip,
          cutAt: d.cutAt,
          bodyHash: d.bodyHash,
          estimatedTokens: d.estimatedTokens,
          decisionIds: d.decisionIds,
          newDecisionIds: d.newDecisionIds,
          capabilities: d.request.capabilities ?? null,
          rungs: d.rungs ?? null,
        });
      }
    }
    return { items, nextAt: null };
  }

  private async foldToContext(
    stream: string,
    contextId: string,
  ): Promise<{ record: ContextRecord; fold: ReplayFold } | null> {
    const fold = createReplayFold(PROJECTIONS);
    try {
      let held: RecordedEvent[] = [];
      for await (const chunk of this.read(stream, 0)) {
        const ready: RecordedEvent[] = [];
        for (const e of chunk) {
          if (isType(e, 'ContextAssembled') && e.data.contextId === contextId) {
            fold.apply(ready);
            const newDecisions = held.map(
              (h) => (h.data as { decision: CompactionDecision }).decision,
            );
            return { record: { revision: Number(e.revision), data: e.data, newDecisions }, fold };
          }
          if (isType(e, 'CompactionApplied')) {
            held.push(e);
            continue;
          }
          ready.push(...held, e);
          held = [];
        }
        fold.apply(ready);
      }
      fold.close();
      return null;
    } catch (e) {
      fold.close();
      throw e;
    }
  }

  async reproduce(caller: Caller, id: string, contextId: string): Promise<ContextReproduction> {
    const found = await this.foldToContext(conversationStream(caller.tenantId, id), contextId);
    if (found === null) {
      throw new AppError('context_not_found', `no context ${contextId} in this conversation`);
    }
    const { record, fold } = found;
    try {
      const { tenantId } = caller;
      const q = fold.queries;
      const state = fold.state();
      const tip = q.getConversation(tenantId, id)?.tip ?? null;
      const { tip: recordedTip, cutAt: recordedCut } = record.data;
      const cut = windowCut(state);
      const ruleDepth = cut === null ? 0 : (q.depthOf(tenantId, id, cut) ?? 0);
      const ruleCut = (await q.activeBranchPage(tenantId, id, ruleDepth, 1)).items[0]?.id ?? null;
      const checks: Check[] = [
        {
          name: 'window',
          recorded: { tip: recordedTip, cutAt: recordedCut },
          reproduced: { tip, cutAt: ruleCut },
          equal: tip === recordedTip && ruleCut === recordedCut,
        },
      ];
      const window = await this.recordedWindow(fold, tenantId, id, tip, recordedTip, recordedCut);
      const answer = await reproduceContext(
        {
          conversationId: id,
          record,
          decisionsBefore: compactionsInForce(state),
          window,
          renderPages: this.renderPages,
          branchSummaries: state.branchSummaries,
          assemble: this.assembler(tenantId, id),
        },
        checks,
      );
      if (!answer.match) {
        this.logger.error(
          `context ${contextId} of ${tenantId}/${id} does not reproduce ` +
            `(${String(answer.mismatch?.reason)}): ${String(answer.mismatch?.detail)}`,
        );
      }
      return answer;
    } finally {
      fold.close();
    }
  }

  private async recordedWindow(
    fold: ReplayFold,
    tenantId: string,
    id: string,
    tip: string | null,
    recordedTip: string | null,
    recordedCut: string | null,
  ) {
    if (tip !== recordedTip) {
      return { problem: `the replayed tip is ${tip}, the recorded one ${recordedTip}` };
    }
    if (recordedTip === null) return [];
    if (recordedCut === null) {
      return { problem: `the context names tip ${recordedTip} but no cut` };
    }
    const q = fold.queries;
    const depth = q.depthOf(tenantId, id, recordedCut);
    const messages = depth === null ? [] : await readBranch(q, tenantId, id, depth);
    if (messages[0]?.id !== recordedCut) {
      return { problem: `the recorded cut ${recordedCut} is not on the replayed active branch` };
    }
    return messages;
  }
}
