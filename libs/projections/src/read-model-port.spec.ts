import { counterDeps, newSession, ok, qa } from '@arbor/domain/testing/session';
import { recorded } from './conversations/testing/histories';
import { conversationsProjection, createConversationQueries, eventMessages } from './conversations';
import { createBatchApplier, migrateAll } from './projector';
import { openReadModelDb } from './read-model-db';
import { asyncQueries } from './read-model-port';

describe('the SQLite queries through the async port', () => {
  it('reads every message of a long conversation with the loop free between slices', async () => {
    const s = newSession(counterDeps('m'));
    ok(s, { type: 'start', conversationId: 'c' });
    let tip: string | null = null;
    for (let i = 0; i < 24; i++) {
      tip = ok(s, {
        type: 'commitTurn',
        parentId: tip,
        messages: qa(`q${i} ${'x'.repeat(60_000)}`, `a${i}`),
      }).tip;
    }
    const db = openReadModelDb(':memory:');
    migrateAll(db, [conversationsProjection]);
    const events = recorded(s.log);
    createBatchApplier(db, 'spec', [conversationsProjection])(
      events,
      events[events.length - 1].position,
    );
    const bodies = eventMessages();
    bodies.add(events);
    const sync = createConversationQueries(db, undefined, bodies);
    // Counts the loop's turns while the read runs: a read in one piece lets none through.
    let turns = 0;
    let reading = true;
    const turn = () => {
      if (!reading) return;
      turns++;
      setImmediate(turn);
    };
    setImmediate(turn);
    const all = await asyncQueries(sync).allMessages('t', 'c');
    reading = false;
    expect(all).toEqual(await sync.allMessages('t', 'c'));
    expect(all).toHaveLength(48);
    expect(turns).toBeGreaterThan(1);
    db.close();
  });
});
