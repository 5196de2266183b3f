import fc from 'fast-check';
import { type RecordedEvent } from '@arbor/event-store';
import { messagesOf, type Session } from '@arbor/domain/testing/session';
import { createBatchApplier, migrateAll } from '../projector';
import { openReadModelDb } from '../read-model-db';
import { conversationsProjection, createConversationQueries, eventMessages } from './index';
import { arbOps as opsOf, play, recorded as recordedLog } from './testing/histories';

const arbOps = opsOf(25);
const recorded = (s: Session) => recordedLog(s.log);

/** Projects `events` in two halves, so a read can happen between them. */
const projector = () => {
  const db = openReadModelDb(':memory:');
  migrateAll(db, [conversationsProjection]);
  const apply = createBatchApplier(db, 'spec', [conversationsProjection]);
  const bodies = eventMessages();
  return {
    db,
    bodies,
    apply: (events: readonly RecordedEvent[]) => {
      bodies.add(events);
      if (events.length > 0) apply(events, events[events.length - 1].position);
    },
  };
};

const pathTo = (s: Session, tip: string | null) => {
  const byId = messagesOf(s.log);
  const out = [];
  for (let id = tip; id !== null; id = byId.get(id)?.parentId ?? null) {
    const m = byId.get(id);
    if (m) out.unshift(m);
  }
  return out;
};

const readBranch = async (
  queries: ReturnType<typeof createConversationQueries>,
  pageSize: number,
): Promise<unknown[]> => {
  const out: unknown[] = [];
  for (let from: number | null = 0; from !== null;) {
    const page = await queries.activeBranchPage('t', 'c', from, pageSize);
    out.push(...page.items);
    from = page.nextDepth;
  }
  return out;
};

describe('conversation queries', () => {
  it('reads the active branch page by page as the log has it, before and after more turns and moves', async () => {
    await fc.assert(
      fc.asyncProperty(
        arbOps,
        arbOps,
        fc.integer({ min: 1, max: 9 }),
        async (first, then, pageSize) => {
          const before = play(first);
          const after = play([...first, ...then]);
          const events = recorded(after);
          const p = projector();
          const queries = createConversationQueries(p.db, undefined, p.bodies);
          p.apply(events.slice(0, before.log.length));
          expect(await readBranch(queries, pageSize)).toEqual(pathTo(before, before.state.tip));
          // More turns and moves land: the same queries object reads the new branch.
          p.apply(events.slice(before.log.length));
          const expected = pathTo(after, after.state.tip);
          expect(await readBranch(queries, pageSize)).toEqual(expected);
          expect(await readBranch(queries, pageSize)).toEqual(expected);
          for (const m of expected) expect(await queries.getMessage('t', 'c', m.id)).toEqual(m);
          p.db.close();
        },
      ),
      { numRuns: 100 },
    );
  });

  it('never serves a cached branch window the log has moved past (every window cached, small budgets evict)', async () => {
    await fc.assert(
      fc.asyncProperty(
        arbOps,
        arbOps,
        fc.integer({ min: 1, max: 9 }),
        fc.constantFrom(0, 600, 1_000_000),
        async (first, then, pageSize, maxBytes) => {
          const before = play(first);
          const after = play([...first, ...then]);
          const events = recorded(after);
          const p = projector();
          const queries = createConversationQueries(p.db, { maxBytes, minBytes: 0 }, p.bodies);
          p.apply(events.slice(0, before.log.length));
          const expectedBefore = pathTo(before, before.state.tip);
          // Read three times: the second read admits a window, the third is served from it.
          for (let r = 0; r < 3; r++)
            expect(await readBranch(queries, pageSize)).toEqual(expectedBefore);
          // Event by event: after each one, twice (admit, serve), the cached reads equal the
          // uncached ones over the same tables.
          const uncached = createConversationQueries(p.db, { maxBytes: 0, minBytes: 0 }, p.bodies);
          for (const e of events.slice(before.log.length)) {
            p.apply([e]);
            const truth = await readBranch(uncached, pageSize);
            expect(await readBranch(queries, pageSize)).toEqual(truth);
            expect(await readBranch(queries, pageSize)).toEqual(truth);
          }
          const expected = pathTo(after, after.state.tip);
          for (let r = 0; r < 3; r++) expect(await readBranch(queries, pageSize)).toEqual(expected);
          p.db.close();
        },
      ),
      { numRuns: 100 },
    );
  });

  it('scopes single messages by tenant and conversation', async () => {
    const s = play([{ kind: 'turn', from: 0, tool: false }]);
    const p = projector();
    p.apply(recorded(s));
    const queries = createConversationQueries(p.db, undefined, p.bodies);
    const [m] = (await queries.activeBranchPage('t', 'c', 0, 10)).items;
    expect(await queries.getMessage('t', 'c', m.id)).not.toBeNull();
    expect(await queries.getMessage('other', 'c', m.id)).toBeNull();
    expect(await queries.getMessage('t', 'other', m.id)).toBeNull();
    p.db.close();
  });
});
