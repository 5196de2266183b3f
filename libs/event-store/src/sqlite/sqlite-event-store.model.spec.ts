import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { WrongExpectedVersionError } from '../errors';
import { type AppendResult, type CurrentRevision, type ExpectedRevision } from '../types';
import { openSqliteEventStore } from './sqlite-event-store';

/**
 * Model-based check: random appends (reused ids, every kind of expected revision) against a
 * naive in-memory model of EventStoreDB's commit rules, plus this store's global id uniqueness.
 * After every step the outcome must match; at the end the whole log must match.
 */
interface Row {
  stream: string;
  id: string;
  revision: bigint;
}
type Outcome = { ok: AppendResult } | { conflict: CurrentRevision };

const ID_POOL = Array.from({ length: 6 }, (_, i) => `00000000-0000-4000-8000-00000000000${i}`);

const modelAppend = (
  log: Row[],
  stream: string,
  ids: string[],
  expected: ExpectedRevision,
): Outcome => {
  const own = log.filter((r) => r.stream === stream);
  const current: CurrentRevision = own.length === 0 ? 'no_stream' : own[own.length - 1].revision;
  const positionOf = (row: Row) => BigInt(log.indexOf(row) + 1);
  const conflict = { conflict: current };
  const write = (): Outcome => {
    const fresh =
      new Set(ids).size === ids.length && ids.every((id) => !log.some((r) => r.id === id));
    if (!fresh) return conflict;
    let revision = current === 'no_stream' ? -1n : current;
    for (const id of ids) log.push({ stream, id, revision: ++revision });
    return { ok: { nextExpectedRevision: revision, position: BigInt(log.length) } };
  };
  if (expected === 'any' || expected === 'stream_exists') {
    if (expected === 'stream_exists' && current === 'no_stream') return conflict;
    const found = ids.map((id) => own.find((r) => r.id === id));
    if (found[0] === undefined) return write();
    if (found.some((r) => r === undefined)) return conflict;
    const last = found[found.length - 1] as Row;
    return { ok: { nextExpectedRevision: last.revision, position: positionOf(last) } };
  }
  const exact = expected === 'no_stream' ? -1n : expected;
  const cur = current === 'no_stream' ? -1n : current;
  if (exact === cur) return write();
  if (exact > cur) return conflict;
  const atSlots = ids.map((id, i) => own.find((r) => r.revision === exact + 1n + BigInt(i)));
  if (atSlots.some((r, i) => r === undefined || r.id !== ids[i])) return conflict;
  const last = atSlots[atSlots.length - 1] as Row;
  return { ok: { nextExpectedRevision: last.revision, position: positionOf(last) } };
};

const command = fc.record({
  stream: fc.constantFrom('s-a', 's-b'),
  ids: fc.array(fc.constantFrom(...ID_POOL), { minLength: 1, maxLength: 3 }),
  expected: fc.oneof(
    fc.constantFrom<ExpectedRevision>('any', 'no_stream', 'stream_exists'),
    fc.bigInt({ min: 0n, max: 4n }),
  ),
});

describe('sqlite event store against a model of the append rules', () => {
  it('agrees on every outcome and on the final log', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { maxLength: 25 }), async (commands) => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-'));
        const store = openSqliteEventStore({
          path: path.join(dir, 'events.sqlite'),
          synchronous: 'OFF',
        });
        try {
          const log: Row[] = [];
          for (const { stream, ids, expected } of commands) {
            const want = modelAppend(log, stream, ids, expected);
            const events = ids.map((id) => ({
              id,
              type: 'E',
              data: null,
              metadata: { tenantId: 't', actor: 'a', timestamp: '' },
            }));
            let got: Outcome;
            try {
              got = {
                ok: await store.appendToStream(stream, events, { expectedRevision: expected }),
              };
            } catch (error) {
              if (!(error instanceof WrongExpectedVersionError)) throw error;
              got = { conflict: error.actual };
            }
            expect(got).toEqual(want);
          }
          const all = await store.readAll();
          expect(
            all.map((e) => ({ stream: e.streamName, id: e.id, revision: e.revision })),
          ).toEqual(log);
          expect(all.map((e) => e.position)).toEqual(log.map((_, i) => BigInt(i + 1)));
        } finally {
          await store.close();
          fs.rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 150 },
    );
  });
});
