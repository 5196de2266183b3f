import { randomUUID } from 'node:crypto';
import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import {
  conversationStream,
  createKeyedQueue,
  type EventData,
  type EventStore,
  type RecordedEvent,
  StreamNotFoundError,
} from '@arbor/event-store';
import {
  canonicalJson,
  type Command,
  type ConversationEvent,
  type ConversationState,
  type Decision,
  type DecideDeps,
  decide,
  type EraseCommand,
  type ForkCommand,
  forkPathIds,
  foldEvents,
  initialState,
  type Message,
  messageCount,
  type ResultOf,
  stableId,
} from '@arbor/domain';
import { type Caller } from '../caller';
import { ARBOR_CONFIG, type ArborConfig } from '../config/config';
import { AppError, fromDomainError } from '../errors';
import { expectedRevisionOf, handleCommand } from '../write/handle-command';
import { EVENT_STORE, KEY_STORE } from '../store/store.provider';
import { type ErasureRecord, type KeyStore } from '@arbor/event-store/crypto';
import { openStateSnapshots, type StateSnapshots, stateSnapshotsPath } from '@arbor/projections';

/** 410 `conversation_erased`, with when and why (never any content). */
export const erasedError = (erasure: ErasureRecord): AppError =>
  new AppError('conversation_erased', 'This conversation was erased.', {
    erasedAt: erasure.erasedAt,
    reason: erasure.reason,
  });

export interface ForkOpening {
  conversationId: string;
  events: readonly ConversationEvent[];
}

export interface Executed<R> {
  result: R;
  position: bigint | null;
}

const deps: DecideDeps = { newId: () => randomUUID(), now: () => new Date().toISOString() };

const depsFor = (tenantId: string): DecideDeps => ({
  ...deps,
  stableId: (name) => stableId([tenantId, ...name]),
});

const OPENING = 2;

/** The write side: cached states caught up from their revision, commands serialized per conversation. */
@Injectable()
export class ConversationRepository implements OnApplicationShutdown {
  private readonly cache: LRUCache<string, ConversationState>;
  private readonly queue = createKeyedQueue();
  private readonly snapshots: StateSnapshots | null;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(ARBOR_CONFIG) config: ArborConfig,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
  ) {
    const maxSize = config.stateCacheMessages;
    this.cache = new LRUCache({
      maxSize,
      // Capped at the bound: a conversation larger than the cache is kept alone, not re-read per command.
      sizeCalculation: (state) => Math.min(messageCount(state) + 1, maxSize),
    });
    this.snapshots =
      config.stateSnapshotEvery > 0
        ? openStateSnapshots(stateSnapshotsPath(config.dataDir), keys, {
            every: config.stateSnapshotEvery,
          })
        : null;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.snapshots?.close();
  }

  private async readFrom(stream: string, fromRevision: number): Promise<RecordedEvent[]> {
    try {
      return await this.store.readStream(stream, { fromRevision: BigInt(fromRevision) });
    } catch (e) {
      if (e instanceof StreamNotFoundError) return [];
      throw e;
    }
  }

  async load(tenantId: string, conversationId: string): Promise<ConversationState> {
    const stream = conversationStream(tenantId, conversationId);
    const cached = this.cache.get(stream);
    if (cached === undefined && this.snapshots !== null) {
      const loaded = await this.snapshots.load(this.store, stream);
      this.remember(stream, loaded.state);
      if (loaded.lastEventId !== null) {
        this.snapshots.advanced(stream, loaded.state, loaded.lastEventId);
      }
      return loaded.state;
    }
    const from = cached ?? initialState();
    const events = await this.readFrom(stream, from.revision + 1);
    if (events.length === 0) return from;
    const state = foldEvents(events, from);
    this.remember(stream, state);
    this.snapshots?.advanced(stream, state, events[events.length - 1].id);
    return state;
  }

  /** Drops the cached write-side state (it holds titles and failed inputs): after an erasure. */
  forget(tenantId: string, conversationId: string): void {
    const stream = conversationStream(tenantId, conversationId);
    this.cache.delete(stream);
    this.snapshots?.drop(stream);
  }

  private remember(stream: string, state: ConversationState): void {
    if (state.status === 'active') this.cache.set(stream, state);
    else this.cache.delete(stream);
  }

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

  /** An existing stream that opens exactly as `events` is this fork from an earlier attempt: null. */
  private async openFork(
    tenantId: string,
    { conversationId: forkId, events }: ForkOpening,
    caller: Caller,
    causationId: string,
  ): Promise<bigint | null> {
    const stream = conversationStream(tenantId, forkId);
    const handled = await handleCommand(this.store, {
      stream,
      load: async () => {
        try {
          return await this.store.readStream(stream, { maxCount: OPENING });
        } catch (e) {
          if (e instanceof StreamNotFoundError) return [];
          throw e;
        }
      },
      expectedRevision: () => 'no_stream',
      decide: (existing) => {
        if (existing.length === 0) {
          return { events: this.toEventData(events, tenantId, caller, causationId), result: null };
        }
        const same =
          existing.length === OPENING &&
          existing.every(
            (x, i) =>
              x.type === events[i].type && canonicalJson(x.data) === canonicalJson(events[i].data),
          );
        if (!same) throw new AppError('conversation_exists', 'The fork id is taken.');
        return { events: [], result: null };
      },
    });
    return handled.appended?.position ?? null;
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

  /** `command` may be a function of the state, for what only it knows when run (the tip). */
  execute<C extends Exclude<Command, ForkCommand>>(
    caller: Caller,
    conversationId: string,
    command: C | ((state: ConversationState) => C),
  ): Promise<Executed<ResultOf<C['type']>>> {
    const commandFor = typeof command === 'function' ? command : () => command;
    return this.write(
      caller,
      conversationId,
      async (state) => decide(commandFor(state), state, depsFor(caller.tenantId)),
      () => null,
    );
  }

  fork(
    caller: Caller,
    conversationId: string,
    command: Omit<ForkCommand, 'path'>,
  ): Promise<Executed<ResultOf<'fork'>>> {
    const tenantId = caller.tenantId;
    let pinnedForkId: string | undefined;
    return this.write(
      caller,
      conversationId,
      async (state) => {
        const ids = state.status === 'none' ? [] : forkPathIds(state, command.messageId);
        if (ids === null)
          throw new AppError(
            'message_not_found',
            `no message ${command.messageId} in this conversation`,
          );
        const path = await this.messagesById(tenantId, conversationId, ids);
        const forkConversationId = pinnedForkId ?? command.forkConversationId;
        return decide({ ...command, path, forkConversationId }, state, depsFor(tenantId));
      },
      (result): ForkOpening => {
        pinnedForkId = result.forkConversationId;
        return { conversationId: result.forkConversationId, events: result.forkEvents };
      },
    );
  }

  /** Runs even when the tombstone exists (a crash between key and event), to append the event. */
  erase(
    caller: Caller,
    conversationId: string,
    command: EraseCommand,
    destroyKey: () => Promise<void>,
  ): Promise<Executed<ResultOf<'erase'>>> {
    return this.write(
      caller,
      conversationId,
      async (state) => decide(command, state, depsFor(caller.tenantId)),
      () => null,
      destroyKey,
    );
  }

  private write<R>(
    caller: Caller,
    conversationId: string,
    decideOn: (state: ConversationState) => Promise<Decision<R>>,
    openingOf: (result: R) => ForkOpening | null,
    destroyKey: (() => Promise<void>) | null = null,
  ): Promise<Executed<R>> {
    const tenantId = caller.tenantId;
    const stream = conversationStream(tenantId, conversationId);
    return this.queue.run(stream, async () => {
      const causationId = randomUUID();
      if (destroyKey === null) {
        const tombstone = await this.keys.erasure(stream);
        if (tombstone !== null) throw erasedError(tombstone);
      }
      let opened: bigint | null = null;
      const handled = await handleCommand<ConversationState, R>(this.store, {
        stream,
        load: () => this.load(tenantId, conversationId),
        expectedRevision: (state) => expectedRevisionOf(state.revision),
        decide: async (state) => {
          const decision = await decideOn(state);
          if (!decision.ok) throw fromDomainError(decision.error);
          const events = this.toEventData(decision.events, tenantId, caller, causationId);
          return { events, result: decision.result };
        },
        beforeAppend: async (_state, { result }) => {
          const opening = openingOf(result);
          if (opening !== null && opening.events.length > 0) {
            opened = await this.openFork(tenantId, opening, caller, causationId);
          }
          await destroyKey?.();
        },
        afterAppend: (state, { events }) => {
          const next = foldEvents(events, state);
          this.remember(stream, next);
          this.snapshots?.advanced(stream, next, events[events.length - 1].id as string);
        },
        onConflict: () => this.cache.delete(stream),
      });
      const appended = handled.appended?.position ?? null;
      const position =
        appended !== null && (opened === null || appended > opened) ? appended : opened;
      return { result: handled.result, position };
    });
  }
}
