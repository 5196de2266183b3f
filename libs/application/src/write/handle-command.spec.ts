import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type EventStore, WrongExpectedVersionError } from '@arbor/event-store';
import { openSqliteEventStore } from '@arbor/event-store/sqlite';
import { AppError } from '../errors';
import {
  expectedRevisionOf,
  handleCommand,
  type CommandHandling,
  type RetryPolicy,
} from './handle-command';

describe('handleCommand (the one write path) over a real SQLite log', () => {
  let dir: string;
  let store: EventStore;
  const stream = 'tenant-t1.profile';
  const ev = (type: string) => ({
    type,
    data: {},
    metadata: { tenantId: 't1', actor: 'test', timestamp: new Date().toISOString() },
  });
  const revisionOf = async (): Promise<number> => {
    try {
      const last = await store.readStream(stream, { direction: 'backwards', maxCount: 1 });
      return Number(last[0].revision);
    } catch {
      return -1;
    }
  };
  const types = async () => (await store.readStream(stream)).map((e) => e.type);
  /** Appends `Mine` at the revision it loaded; `rival` runs between the load and the append. */
  const mine = (
    rival: (n: number) => Promise<void>,
  ): CommandHandling<number, string> & {
    attempts: number;
  } => {
    const h = {
      attempts: 0,
      stream,
      load: revisionOf,
      expectedRevision: expectedRevisionOf,
      decide: () => ({ events: [ev('Mine')], result: 'done' }),
      beforeAppend: async () => {
        h.attempts++;
        await rival(h.attempts);
      },
    };
    return h;
  };
  const fast: RetryPolicy = { maxAttempts: 3, startingDelayMs: 1, maxDelayMs: 2 };

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-handle-command-'));
    store = openSqliteEventStore({ path: path.join(dir, 'events.sqlite') });
  });
  afterEach(async () => {
    jest.useRealTimers();
    jest.restoreAllMocks();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('decides again on fresh state when another writer appended first', async () => {
    const conflicts: string[] = [];
    const h = mine(async (n) => {
      if (n === 1) await store.appendToStream(stream, [ev('Rival')]);
    });
    const handled = await handleCommand(
      store,
      { ...h, onConflict: (e) => conflicts.push(e.streamName) },
      fast,
    );
    expect(handled.result).toBe('done');
    expect(handled.appended?.nextExpectedRevision).toBe(1n);
    expect(h.attempts).toBe(2);
    expect(conflicts).toEqual([stream]);
    expect(await types()).toEqual(['Rival', 'Mine']);
  });

  it('gives up with concurrency_conflict after maxAttempts lost races', async () => {
    const h = mine(async () => {
      await store.appendToStream(stream, [ev('Rival')]);
    });
    const run = handleCommand(store, h, fast);
    await expect(run).rejects.toMatchObject({ code: 'concurrency_conflict' });
    await expect(run).rejects.toBeInstanceOf(AppError);
    expect(h.attempts).toBe(fast.maxAttempts);
    expect(await types()).toEqual(['Rival', 'Rival', 'Rival']);
  });

  it('appends nothing when the decision has no events', async () => {
    const handled = await handleCommand(store, {
      stream,
      load: revisionOf,
      expectedRevision: expectedRevisionOf,
      decide: () => ({ events: [], result: 'noop' }),
    });
    expect(handled).toEqual({ result: 'noop', appended: null });
    expect(await revisionOf()).toBe(-1);
  });

  it('does not retry other errors, nor a conflict the caller turns into its own error', async () => {
    let attempts = 0;
    await expect(
      handleCommand(store, {
        stream,
        load: revisionOf,
        expectedRevision: expectedRevisionOf,
        decide: () => {
          attempts++;
          throw new AppError('stale_tip');
        },
      }),
    ).rejects.toMatchObject({ code: 'stale_tip' });
    expect(attempts).toBe(1);
    await store.appendToStream(stream, [ev('First')]);
    await expect(
      handleCommand(store, {
        stream,
        load: async () => -1,
        expectedRevision: expectedRevisionOf,
        decide: () => ({ events: [ev('Again')], result: null }),
        onConflict: (e: WrongExpectedVersionError) => {
          throw new AppError('conversation_exists', `taken: ${e.streamName}`);
        },
      }),
    ).rejects.toMatchObject({ code: 'conversation_exists' });
  });

  describe('the retry policy: exponential backoff with full jitter', () => {
    const policy: RetryPolicy = { maxAttempts: 4, startingDelayMs: 100, maxDelayMs: 300 };
    /** Runs a command that loses every race, on fake timers; resolves when it gives up. */
    const losing = () => {
      const h = mine(async () => {
        await store.appendToStream(stream, [ev('Rival')]);
      });
      const settled = handleCommand(store, h, policy).catch((e: unknown) => e);
      return { h, settled };
    };
    /** Lets the SQLite appends (real I/O, not timers) finish. */
    const drain = () => new Promise((r) => setImmediate(r));
    const advance = async (ms: number) => {
      await jest.advanceTimersByTimeAsync(ms);
      for (let i = 0; i < 5; i++) await drain();
    };

    it('waits the whole capped, doubling delay when the jitter draws its maximum', async () => {
      jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick'] });
      jest.spyOn(Math, 'random').mockReturnValue(1);
      const { h, settled } = losing();
      await advance(0);
      expect(h.attempts).toBe(1);
      // Before attempt 2: 100 ms; before 3: 200 ms; before 4: 400 capped to 300.
      for (const [wait, attempts] of [
        [100, 2],
        [200, 3],
        [300, 4],
      ] as const) {
        await advance(wait - 1);
        expect(h.attempts).toBe(attempts - 1);
        await advance(1);
        expect(h.attempts).toBe(attempts);
      }
      await expect(settled).resolves.toMatchObject({ code: 'concurrency_conflict' });
      expect(h.attempts).toBe(policy.maxAttempts);
    });

    it('waits a random share of that delay (full jitter)', async () => {
      jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick'] });
      jest.spyOn(Math, 'random').mockReturnValue(0.25);
      const { h, settled } = losing();
      await advance(0);
      expect(h.attempts).toBe(1);
      await advance(24);
      expect(h.attempts).toBe(1);
      await advance(1);
      expect(h.attempts).toBe(2);
      await advance(50);
      expect(h.attempts).toBe(3);
      await advance(75);
      expect(h.attempts).toBe(4);
      await expect(settled).resolves.toMatchObject({ code: 'concurrency_conflict' });
    });
  });
});
