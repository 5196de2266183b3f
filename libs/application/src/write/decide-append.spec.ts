import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type EventStore, WrongExpectedVersionError } from '@arbor/event-store';
import { openSqliteEventStore } from '@arbor/event-store/sqlite';
import { AppError } from '../errors';
import { decideAndAppend, expectedRevisionOf, MAX_ATTEMPTS } from './decide-append';

describe('decideAndAppend (the one write path) over a real SQLite log', () => {
  let dir: string;
  let store: EventStore;
  const stream = 'tenant-t1.profile';
  const ev = (type: string) => [
    {
      type,
      data: {},
      metadata: { tenantId: 't1', actor: 'test', timestamp: new Date().toISOString() },
    },
  ];
  const revisionOf = async (): Promise<number> => {
    try {
      const last = await store.readStream(stream, { direction: 'backwards', maxCount: 1 });
      return Number(last[0].revision);
    } catch {
      return -1;
    }
  };

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-decide-append-'));
    store = openSqliteEventStore({ path: path.join(dir, 'events.sqlite') });
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('decides again on fresh state when another writer appended first', async () => {
    let attempts = 0;
    const seen: number[] = [];
    const conflicts: string[] = [];
    await decideAndAppend(
      async () => {
        attempts++;
        const revision = await revisionOf();
        seen.push(revision);
        // A rival writes between this attempt's load and its append, once.
        if (attempts === 1) await store.appendToStream(stream, ev('Rival'));
        await store.appendToStream(stream, ev('Mine'), {
          expectedRevision: expectedRevisionOf(revision),
        });
      },
      (e) => conflicts.push(e.streamName),
    );
    expect(attempts).toBe(2);
    expect(seen).toEqual([-1, 0]);
    expect(conflicts).toEqual([stream]);
    expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['Rival', 'Mine']);
  });

  it(`gives up with concurrency_conflict after ${MAX_ATTEMPTS} lost races`, async () => {
    let attempts = 0;
    const run = decideAndAppend(async () => {
      attempts++;
      const revision = await revisionOf();
      await store.appendToStream(stream, ev('Rival'));
      await store.appendToStream(stream, ev('Mine'), {
        expectedRevision: expectedRevisionOf(revision),
      });
    });
    await expect(run).rejects.toMatchObject({ code: 'concurrency_conflict' });
    await expect(run).rejects.toBeInstanceOf(AppError);
    expect(attempts).toBe(MAX_ATTEMPTS);
    expect((await store.readStream(stream)).every((e) => e.type === 'Rival')).toBe(true);
  });

  it('does not retry other errors, nor a conflict the caller turns into its own error', async () => {
    let attempts = 0;
    await expect(
      decideAndAppend(async () => {
        attempts++;
        throw new AppError('stale_tip');
      }),
    ).rejects.toMatchObject({ code: 'stale_tip' });
    expect(attempts).toBe(1);
    await store.appendToStream(stream, ev('First'));
    await expect(
      decideAndAppend(
        () => store.appendToStream(stream, ev('Again'), { expectedRevision: 'no_stream' }),
        (e: WrongExpectedVersionError) => {
          throw new AppError('conversation_exists', `taken: ${e.streamName}`);
        },
      ),
    ).rejects.toMatchObject({ code: 'conversation_exists' });
  });
});
