import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  conversationStream,
  type EventData,
  type EventStore,
  type RecordedEvent,
  StreamNotFoundError,
  WrongExpectedVersionError,
} from '@arbor/event-store';
import {
  canonicalJson,
  type Command,
  type ConversationEvent,
  type ConversationState,
  type DecideDeps,
  decide,
  foldEvents,
  initialState,
  type Message,
  messageCount,
  type ResultOf,
  stableId,
} from '@arbor/domain';
import { type Caller } from '../caller';
import { createWeightedLru } from '../common/weighted-lru';
import { ARBOR_CONFIG, type ArborConfig } from '../config/config';
import { AppError, fromDomainError } from '../errors';
import { EVENT_STORE } from '../store/store.provider';

export interface Executed<R> {
  result: R;
  /** Global position of the last event written, or null when nothing was written (a replay). */
  position: bigint | null;
}

const deps: DecideDeps = { newId: () => randomUUID(), now: () => new Date().toISOString() };

/** Derived ids are scoped by tenant: equal requests in two tenants name different forks. */
const depsFor = (tenantId: string): DecideDeps => ({
  ...deps,
  stableId: (name) => stableId([tenantId, ...name]),
});

/** A fork's opening is identified by its first two events: lineage, title, metadata, id map. */
const OPENING = 2;

const MAX_ATTEMPTS = 3;

/**
 * The write side: each conversation's state is cached (bounded by messages held) and caught up
 * from its last revision; a command is decided over it and its events appended in one call that
 * expects that revision. A concurrent writer elsewhere makes the append fail; the state is then
 * reloaded and the command decided again. Commands on one conversation are serialized in process.
 */
@Injectable()
export class ConversationRepository {
  private readonly cache;
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(ARBOR_CONFIG) config: ArborConfig,
  ) {
    this.cache = createWeightedLru<ConversationState>(config.stateCacheMessages);
  }

  private serialize<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(key) ?? Promise.resolve();
    const run = previous.then(work, work);
    const tail = run.catch(() => undefined);
    this.queues.set(key, tail);
    void tail.then(() => {
      if (this.queues.get(key) === tail) this.queues.delete(key);
    });
    return run;
  }

  private async readFrom(stream: string, fromRevision: number): Promise<RecordedEvent[]> {
    try {
      return await this.store.readStream(stream, { fromRevision: BigInt(fromRevision) });
    } catch (e) {
      if (e instanceof StreamNotFoundError) return [];
      throw e;
    }
  }

  /** The conversation's current state, caught up with the log. */
  async load(tenantId: string, conversationId: string): Promise<ConversationState> {
    const stream = conversationStream(tenantId, conversationId);
    const cached = this.cache.get(stream) ?? initialState();
    const events = await this.readFrom(stream, cached.revision + 1);
    if (events.length === 0) return cached;
    const state = foldEvents(events, cached);
    this.remember(stream, state);
    return state;
  }

  private remember(stream: string, state: ConversationState): void {
    if (state.status !== 'none') this.cache.set(stream, state, messageCount(state) + 1);
  }

  /** The full messages of a conversation by id (for forks, which copy content). */
  async messagesById(
    tenantId: string,
    conversationId: string,
    ids: readonly string[],
  ): Promise<Message[]> {
    const wanted = new Set(ids);
    const found = new Map<string, Message>();
    for (const e of await this.readFrom(conversationStream(tenantId, conversationId), 0)) {
      if (e.type === 'MessageAppended') {
        const m = (e.data as { message: Message }).message;
        if (wanted.has(m.id)) found.set(m.id, m);
      }
    }
    return ids.map((id) => {
      const m = found.get(id);
      if (!m) throw new AppError('internal_error', `message ${id} missing from the log`);
      return m;
    });
  }

  /**
   * Writes a fork's own stream (`no_stream`). If the stream exists and opens exactly as `events`
   * do (same ConversationStarted and ForkedFrom: same lineage, title, metadata and id map), it is
   * this fork, written by an earlier attempt whose source-side append failed: it is kept as it is
   * and null returned, so the caller completes the source side. Anything else is a taken id.
   */
  private async openFork(
    tenantId: string,
    forkId: string,
    events: readonly ConversationEvent[],
    caller: Caller,
    causationId: string,
  ): Promise<bigint | null> {
    const stream = conversationStream(tenantId, forkId);
    try {
      const r = await this.store.appendToStream(
        stream,
        this.toEventData(events, tenantId, caller, causationId),
        { expectedRevision: 'no_stream' },
      );
      return r.position;
    } catch (e) {
      if (!(e instanceof WrongExpectedVersionError)) throw e;
      const existing = await this.store.readStream(stream, { maxCount: OPENING });
      const same =
        existing.length === OPENING &&
        existing.every(
          (x, i) =>
            x.type === events[i].type && canonicalJson(x.data) === canonicalJson(events[i].data),
        );
      if (!same) throw new AppError('conversation_exists', 'The fork id is taken.');
      return null;
    }
  }

  private toEventData(
    events: readonly ConversationEvent[],
    tenantId: string,
    caller: Caller,
    causationId: string,
  ): EventData[] {
    const timestamp = deps.now();
    return events.map((e) => ({
      id: randomUUID(),
      type: e.type,
      data: e.data,
      metadata: {
        tenantId,
        actor: caller.actor,
        timestamp,
        correlationId: caller.correlationId ?? causationId,
        causationId,
      },
    }));
  }

  /**
   * Decides `command` for the conversation and appends what it decides, atomically, expecting the
   * revision it decided on. Domain errors become problems with the same code.
   */
  execute<C extends Command>(
    caller: Caller,
    conversationId: string,
    command: C,
    prepare?: (state: ConversationState) => Promise<C>,
  ): Promise<Executed<ResultOf<C['type']>>> {
    const tenantId = caller.tenantId;
    const stream = conversationStream(tenantId, conversationId);
    return this.serialize(stream, async () => {
      const causationId = randomUUID();
      /** A fork written by an earlier attempt keeps its id when the source moved under it. */
      let pinnedForkId: string | undefined;
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const state = await this.load(tenantId, conversationId);
        const prepared = prepare && state.status !== 'none' ? await prepare(state) : command;
        const cmd =
          prepared.type === 'fork' && pinnedForkId !== undefined
            ? { ...prepared, forkConversationId: pinnedForkId }
            : prepared;
        const decision = decide(cmd, state, depsFor(tenantId));
        if (!decision.ok) throw fromDomainError(decision.error);
        if (decision.events.length === 0) return { result: decision.result, position: null };
        try {
          let position: bigint | null = null;
          const fork = (decision.result as Partial<ResultOf<'fork'>>).forkEvents;
          const forkId = (decision.result as Partial<ResultOf<'fork'>>).forkConversationId;
          if (fork && forkId) {
            position = await this.openFork(tenantId, forkId, fork, caller, causationId);
            pinnedForkId = forkId;
          }
          const r = await this.store.appendToStream(
            stream,
            this.toEventData(decision.events, tenantId, caller, causationId),
            { expectedRevision: state.revision < 0 ? 'no_stream' : BigInt(state.revision) },
          );
          position = r.position > (position ?? -1n) ? r.position : position;
          this.remember(stream, foldEvents(decision.events as ConversationEvent[], state));
          return { result: decision.result, position };
        } catch (e) {
          if (!(e instanceof WrongExpectedVersionError)) throw e;
          this.cache.delete(stream);
          if (e.streamName !== stream)
            throw new AppError('conversation_exists', 'The fork id is taken.');
        }
      }
      throw new AppError('concurrency_conflict', 'Concurrent writers kept winning; retry.');
    });
  }
}
