/**
 * One contract for every read-model implementation (SQLite, Redis): the same apply and query
 * cases, answers checked against the domain's own fold of the same log.
 */
import fc from 'fast-check';
import { type ConversationEvent } from '@arbor/domain';
import {
  counterDeps,
  messagesOf,
  newSession,
  ok,
  qa,
  type Session,
} from '@arbor/domain/testing/session';
import { conversationStream, type RecordedEvent } from '@arbor/event-store';
import { arbOps, play } from '../conversations/testing/histories';
import { type ReadModelQueries, type ReadModelSink } from '../read-model-port';

export interface ReadModelUnderTest {
  queries: ReadModelQueries;
  sink: ReadModelSink;
}

/** A fresh, empty read model per call; `close` (optional) after each case. */
export interface ReadModelFactory {
  open(): Promise<ReadModelUnderTest>;
  close?(rm: ReadModelUnderTest): Promise<void>;
  /** fast-check runs of the random-history case (a network store gets fewer). */
  runs?: number;
}

/** `log` as recorded in stream `conv-<tenant>.<conv>`, global positions from `from`. */
export const recordedAs = (
  log: readonly ConversationEvent[],
  tenant: string,
  conv: string,
  from = 1,
): RecordedEvent[] =>
  log.map((e, i) => ({
    id: `00000000-0000-4000-8000-${String(from + i).padStart(12, '0')}`,
    streamName: conversationStream(tenant, conv),
    revision: BigInt(i),
    position: BigInt(from + i),
    type: e.type,
    data: e.data,
    metadata: {
      tenantId: tenant,
      actor: 'contract',
      timestamp: `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}.000Z`,
    },
    created: new Date(0),
  }));

const pathTo = (s: Session, tip: string | null) => {
  const byId = messagesOf(s.log);
  const out = [];
  for (let id = tip; id !== null; id = byId.get(id)?.parentId ?? null) {
    const m = byId.get(id);
    if (m) out.unshift(m);
  }
  return out;
};

const readBranch = async (q: ReadModelQueries, t: string, c: string, pageSize: number) => {
  const out: unknown[] = [];
  for (let from: number | null = 0; from !== null;) {
    const page = await q.activeBranchPage(t, c, from, pageSize);
    out.push(...page.items);
    from = page.nextDepth;
  }
  return out;
};

const apply = async (sink: ReadModelSink, events: readonly RecordedEvent[]) => {
  if (events.length > 0) await sink.apply(events, events[events.length - 1].position);
};

/** Checkpoints, a rewind with a digest, failures (one resolved by a turn, one pending). */
const withCheckpointsAndFailures = (): Session => {
  const s = newSession(counterDeps('m'));
  ok(s, { type: 'start', conversationId: 'c', title: 'cp' });
  const first = ok(s, { type: 'commitTurn', parentId: null, messages: qa('q0', 'a0') });
  ok(s, { type: 'setCheckpoint', label: 'b' });
  ok(s, { type: 'setCheckpoint', label: 'a' });
  ok(s, { type: 'commitTurn', parentId: first.tip, messages: qa('q1', 'a1') });
  ok(s, { type: 'rewind', label: 'a', digest: 'explored q1' });
  ok(s, { type: 'recordFailure', input: { n: 1 }, error: { e: 'x' }, failureId: 'f1' });
  ok(s, { type: 'commitTurn', parentId: first.tip, messages: qa('q2', 'a2') });
  ok(s, { type: 'recordFailure', input: { n: 2 }, error: { e: 'y' }, failureId: 'f2' });
  return s;
};

export const readModelContract = (name: string, factory: ReadModelFactory): void => {
  describe(`read-model contract: ${name}`, () => {
    const open = factory.open;
    const close = async (rm: ReadModelUnderTest) => factory.close?.(rm);

    it('reads the active branch page by page and the tree as the log has them, across batches', async () => {
      await fc.assert(
        fc.asyncProperty(
          arbOps(20),
          arbOps(20),
          fc.integer({ min: 1, max: 9 }),
          async (first, then, pageSize) => {
            const before = play(first);
            const after = play([...first, ...then]);
            const events = recordedAs(after.log, 't', 'c');
            const rm = await open();
            try {
              await apply(rm.sink, events.slice(0, before.log.length));
              expect(await readBranch(rm.queries, 't', 'c', pageSize)).toEqual(
                pathTo(before, before.state.tip),
              );
              await apply(rm.sink, events.slice(before.log.length));
              const expected = pathTo(after, after.state.tip);
              expect(await readBranch(rm.queries, 't', 'c', pageSize)).toEqual(expected);
              for (const m of expected)
                expect(await rm.queries.getMessage('t', 'c', m.id)).toEqual(m);
              for (const last of [0, 1, pageSize, expected.length + 1])
                expect((await rm.queries.activeBranchTail('t', 'c', last)).items).toEqual(
                  last === 0 ? [] : expected.slice(-last),
                );
              const all = [...messagesOf(after.log).values()];
              expect(await rm.queries.allMessages('t', 'c')).toEqual(all);
              const tree = await rm.queries.tree('t', 'c');
              expect(tree.map((n) => [n.id, n.parentId, n.role])).toEqual(
                all.map((m) => [m.id, m.parentId, m.role]),
              );
              for (const n of tree)
                expect(n.children).toEqual(all.filter((m) => m.parentId === n.id).map((m) => m.id));
              const row = await rm.queries.getConversation('t', 'c');
              expect(row).toMatchObject({
                tip: after.state.tip,
                revision: after.log.length - 1,
                position: after.log.length,
                messageCount: all.length,
              });
              for (const m of all) {
                const depth = pathTo(after, m.id).length - 1;
                expect(await rm.queries.depthOf('t', 'c', m.id)).toBe(depth);
              }
              expect(await rm.sink.readCheckpoint()).toBe(BigInt(after.log.length));
            } finally {
              await close(rm);
            }
          },
        ),
        { numRuns: factory.runs ?? 50 },
      );
    });

    it('changes nothing when events are delivered again (idempotent by stream revision)', async () => {
      const s = withCheckpointsAndFailures();
      const events = recordedAs(s.log, 't', 'c');
      const rm = await open();
      try {
        await apply(rm.sink, events);
        const once = await rm.sink.dump();
        await apply(rm.sink, events);
        await apply(rm.sink, events.slice(3, 7));
        for (const e of events) await apply(rm.sink, [e]);
        expect(await rm.sink.dump()).toBe(once);
      } finally {
        await close(rm);
      }
    });

    it('writes the same read models from scratch after a reset (rebuild equals live)', async () => {
      const s = play([
        { kind: 'turn', from: 0, tool: false },
        { kind: 'turn', from: 0, tool: true },
        { kind: 'turn', from: 1, tool: false },
        { kind: 'move', to: 1 },
        { kind: 'turn', from: 0, tool: false },
      ]);
      const cp = withCheckpointsAndFailures();
      const events = [
        ...recordedAs(s.log, 't', 'c'),
        ...recordedAs(cp.log, 't', 'd', s.log.length + 1),
      ];
      const rm = await open();
      try {
        for (let i = 0; i < events.length; i += 3) await apply(rm.sink, events.slice(i, i + 3));
        const live = await rm.sink.dump();
        await rm.sink.reset();
        expect(await rm.sink.readCheckpoint()).toBeNull();
        expect(await rm.queries.getConversation('t', 'c')).toBeNull();
        await apply(rm.sink, events);
        expect(await rm.sink.dump()).toBe(live);
      } finally {
        await close(rm);
      }
    });

    it('keeps checkpoints with their status and digests, and the pending failure', async () => {
      const s = withCheckpointsAndFailures();
      const rm = await open();
      try {
        await apply(rm.sink, recordedAs(s.log, 't', 'c'));
        const cps = await rm.queries.checkpoints('t', 'c');
        expect(cps.map((c) => [c.label, c.status, c.digest ?? null])).toEqual([
          ['a', 'rewound', 'explored q1'],
          ['b', 'active', null],
        ]);
        expect(await rm.queries.pendingFailure('t', 'c')).toEqual({
          failureId: 'f2',
          input: { n: 2 },
          error: { e: 'y' },
        });
        const branch = (await rm.queries.activeBranchPage('t', 'c', 0, 10)).items as {
          id: string;
          digests?: unknown[];
        }[];
        const rewoundTo = cps[0].messageId;
        expect(branch.find((m) => m.id === rewoundTo)?.digests).toEqual([
          expect.objectContaining({ label: 'a', digest: 'explored q1' }),
        ]);
        expect(branch.filter((m) => m.digests !== undefined)).toHaveLength(1);
        expect(await rm.queries.checkpoints('u', 'c')).toEqual([]);
        expect(await rm.queries.pendingFailure('u', 'c')).toBeNull();
      } finally {
        await close(rm);
      }
    });

    it('lists in every order (created, last activity, title; both ways), keyset pages, title prefix', async () => {
      const rm = await open();
      try {
        // Titles with ties, a null, case, accents, and two characters whose UTF-16 order is not
        // their UTF-8 order (U+FB00 and U+1D51F): the lists order by UTF-8 bytes.
        const titles = [
          'beta',
          'alpha',
          null,
          'beta',
          'Bravo',
          'béta',
          'b',
          '\u{1D51F}x',
          '\uFB00',
        ];
        const expected: { id: string; title: string | null; seq: number; updatedAt: string }[] = [];
        let position = 1;
        for (let i = 0; i < titles.length; i++) {
          const id = `s${i}`;
          const s = newSession(counterDeps(id));
          ok(s, { type: 'start', conversationId: id, title: titles[i] });
          // 1 to 3 turns: the last event's timestamp (its index in the stream) ties across some.
          for (let n = 0; n <= i % 3; n++)
            ok(s, { type: 'commitTurn', parentId: s.state.tip, messages: qa(`q${n}`, `a${n}`) });
          const events = recordedAs(s.log, 't', id, position);
          expected.push({
            id,
            title: titles[i],
            seq: position,
            updatedAt: events[events.length - 1].metadata.timestamp,
          });
          position += events.length;
          // In two batches: the start, then the turns (a later batch moves the last activity).
          await apply(rm.sink, events.slice(0, 1));
          await apply(rm.sink, events.slice(1));
          const other = recordedAs(s.log, 'u', `u${id}`, position);
          position += other.length;
          await apply(rm.sink, other);
        }
        const bytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
        const keyOf = {
          created: () => '',
          lastActivity: (e: (typeof expected)[number]) => e.updatedAt,
          title: (e: (typeof expected)[number]) => e.title ?? '',
        };
        for (const sort of ['created', 'lastActivity', 'title'] as const) {
          for (const order of ['asc', 'desc'] as const) {
            for (const prefix of sort === 'title'
              ? [null, 'b', 'beta', '\u{1D51F}', 'zz']
              : [null]) {
              const want = expected
                .filter((e) => prefix === null || (e.title ?? '').startsWith(prefix))
                .sort((x, y) => bytes(keyOf[sort](x), keyOf[sort](y)) || x.seq - y.seq)
                .map((e) => e.id);
              if (order === 'desc') want.reverse();
              for (const limit of [1, 2, 4, 100]) {
                const seen: string[] = [];
                let after: { key: string; seq: number } | null = null;
                for (let guard = 0; guard < 50; guard++) {
                  const page = await rm.queries.listConversationsBy('t', {
                    sort,
                    order,
                    titlePrefix: prefix,
                    after,
                    limit,
                  });
                  expect(page.items.length).toBeLessThanOrEqual(limit);
                  expect(page.keys).toHaveLength(page.items.length);
                  seen.push(...page.items.map((c) => c.id));
                  if (!page.more) break;
                  after = page.keys[page.keys.length - 1];
                }
                expect({ sort, order, prefix, limit, ids: seen }).toEqual({
                  sort,
                  order,
                  prefix,
                  limit,
                  ids: want,
                });
              }
            }
          }
        }
      } finally {
        await close(rm);
      }
    });

    it('lists a tenant’s conversations by cursor, forks on their source, scoped by tenant', async () => {
      const rm = await open();
      try {
        let position = 1;
        const ids = ['c1', 'c2', 'c3', 'c4', 'c5'];
        let source: Session | null = null;
        for (const id of ids) {
          const s = newSession(counterDeps(id));
          ok(s, { type: 'start', conversationId: id, title: id });
          ok(s, { type: 'commitTurn', parentId: null, messages: qa('q', 'a') });
          source ??= s;
          const events = recordedAs(s.log, 't', id, position);
          position += events.length;
          await apply(rm.sink, events);
          // Another tenant, interleaved, with the same conversation ids.
          const other = recordedAs(s.log, 'u', id, position);
          position += other.length;
          await apply(rm.sink, other);
        }
        const seen: string[] = [];
        for (let after: number | null = 0; after !== null;) {
          const page = await rm.queries.listConversations('t', after, 2);
          expect(page.items.length).toBeLessThanOrEqual(2);
          expect(page.seqs).toHaveLength(page.items.length);
          if (page.nextSeq !== null) expect(page.nextSeq).toBe(page.seqs[page.seqs.length - 1]);
          seen.push(...page.items.map((c) => c.id));
          after = page.nextSeq;
        }
        expect(seen).toEqual(ids);
        // A fork of c1 (tenant t), as the log records it on the new stream: its start names the
        // source, the copied path arrives as messages closed by TipMoved{fork}.
        const tip = (source as Session).state.tip as string;
        const copied = pathTo(source as Session, tip).map((m) => ({
          ...m,
          id: `f-${m.id}`,
          parentId: m.parentId === null ? null : `f-${m.parentId}`,
        }));
        const forkLog = [
          {
            type: 'ConversationStarted',
            data: {
              conversationId: 'f1',
              title: null,
              metadata: {},
              forkedFrom: { conversationId: 'c1', messageId: tip },
            },
          },
          ...copied.map((message) => ({ type: 'MessageAppended', data: { message } })),
          {
            type: 'TipMoved',
            data: { from: null, to: copied[copied.length - 1].id, reason: 'fork' },
          },
        ] as ConversationEvent[];
        await apply(rm.sink, recordedAs(forkLog, 't', 'f1', position));
        const src = await rm.queries.getConversation('t', 'c1');
        expect(src?.forks).toEqual([{ conversationId: 'f1', messageId: tip }]);
        const fork = await rm.queries.getConversation('t', 'f1');
        expect(fork).toMatchObject({
          tip: copied[copied.length - 1].id,
          forkedFrom: { conversationId: 'c1', messageId: tip },
          messageCount: copied.length,
          turnCount: 1,
        });
        expect(await readBranch(rm.queries, 't', 'f1', 1)).toEqual(copied);
        expect(await rm.queries.getConversation('u', 'c1')).toMatchObject({ forks: [] });
        expect(await rm.queries.getConversation('u', 'f1')).toBeNull();
        const [m] = (await rm.queries.activeBranchPage('t', 'c1', 0, 1)).items;
        expect(await rm.queries.getMessage('t', 'c1', m.id)).toEqual(m);
        expect(await rm.queries.getMessage('v', 'c1', m.id)).toBeNull();
        expect(await rm.queries.getMessage('t', 'c2', m.id)).toBeNull();
      } finally {
        await close(rm);
      }
    });
  });
};
