import fc from 'fast-check';
import { type RecordedEvent } from '@arbor/event-store';
import { messagesOf, type Session } from '@arbor/domain/testing/session';
import { createBatchApplier, dumpReadModels, migrateAll } from '../projector';
import { openReadModelDb } from '../read-model-db';
import { conversationsProjection } from './index';
import { arbOps as opsOf, play, recorded } from './testing/histories';

const arbOps = opsOf(30);

/** Applies `events` in batches of the given sizes (cycled), each batch in one transaction. */
const project = (events: readonly RecordedEvent[], sizes: readonly number[]) => {
  const db = openReadModelDb(':memory:');
  migrateAll(db, [conversationsProjection]);
  const apply = createBatchApplier(db, 'spec', [conversationsProjection]);
  for (let i = 0, k = 0; i < events.length; k++) {
    const batch = events.slice(i, i + sizes[k % sizes.length]);
    apply(batch, batch[batch.length - 1].position);
    i += batch.length;
  }
  return db;
};

/** The path root → tip by parent links: what the active branch means. */
const pathTo = (s: Session): string[] => {
  const byId = messagesOf(s.log);
  const path: string[] = [];
  for (let id = s.state.tip; id !== null; id = byId.get(id)?.parentId ?? null) path.unshift(id);
  return path;
};

describe('conversation projection', () => {
  it('materializes the active branch as the path root → tip, whatever the moves and branches', () => {
    fc.assert(
      fc.property(
        arbOps,
        fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1 }),
        (ops, sizes) => {
          const s = play(ops);
          const db = project(recorded(s.log), sizes);
          const branch = db
            .prepare(
              `SELECT depth, message_id FROM rm_active_branch WHERE tenant_id = 't' AND conversation_id = 'c' ORDER BY depth`,
            )
            .all() as { depth: number; message_id: string }[];
          expect(branch.map((r) => r.message_id)).toEqual(pathTo(s));
          expect(branch.map((r) => r.depth)).toEqual(branch.map((_, i) => i));
          const row = db
            .prepare(`SELECT tip, message_count, turn_count, revision FROM rm_conversations`)
            .get() as {
            tip: string | null;
            message_count: number;
            turn_count: number;
            revision: number;
          };
          expect(row).toEqual({
            tip: s.state.tip,
            message_count: messagesOf(s.log).size,
            turn_count: s.state.turnCount,
            revision: s.log.length - 1,
          });
          db.close();
        },
      ),
      { numRuns: 150 },
    );
  });

  it('writes the same rows however the events are batched', () => {
    fc.assert(
      fc.property(
        arbOps,
        fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1 }),
        (ops, sizes) => {
          const events = recorded(play(ops).log);
          const one = project(events, [events.length]);
          const split = project(events, sizes);
          expect(dumpReadModels(split, [conversationsProjection])).toBe(
            dumpReadModels(one, [conversationsProjection]),
          );
          one.close();
          split.close();
        },
      ),
      { numRuns: 100 },
    );
  });
});
