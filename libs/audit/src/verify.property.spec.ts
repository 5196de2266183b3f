/**
 * Properties on real SQLite files: any workload written through the chain verifies clean, and one
 * single-byte edit of any event's data (one that still parses) is always found, at its position.
 */
import fc from 'fast-check';
import { canonicalJson } from '@arbor/domain/fingerprint';
import { type EventData, type ExpectedRevision } from '@arbor/event-store';
import { withHashChain } from './hash-chain-store';
import { openAttacker } from './testing/attacker';
import { tempLog, type TempLog } from './testing/temp-store';
import { verifyStore } from './verify-log';

const secret = Buffer.from('0f'.repeat(32), 'hex');

interface Append {
  stream: number;
  events: { type: string; data: unknown }[];
  mode: 'exact' | 'any';
}

const appendArb: fc.Arbitrary<Append> = fc.record({
  stream: fc.integer({ min: 0, max: 3 }),
  events: fc.array(
    fc.record({
      type: fc.constantFrom('MessageAppended', 'TurnCommitted', 'TipMoved'),
      data: fc.record({
        text: fc.string({ minLength: 1, maxLength: 40 }),
        n: fc.integer(),
        tags: fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
        nested: fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), {
          maxKeys: 3,
        }),
      }),
    }),
    { minLength: 1, maxLength: 4 },
  ),
  mode: fc.constantFrom('exact' as const, 'any' as const),
});

/** Writes the appends, several in flight at once (as concurrent requests would). */
const write = async (log: TempLog, appends: Append[]) => {
  const raw = log.open();
  const store = withHashChain(raw, secret);
  const revisions = new Map<string, bigint>();
  const run = async ({ stream, events, mode }: Append) => {
    const name = `conv-t.s${stream}`;
    const batch: EventData[] = events.map((e) => ({
      ...e,
      metadata: { tenantId: 't', actor: 'prop', timestamp: '2025-01-01T00:00:00.000Z' },
    }));
    const current = revisions.get(name);
    const expectedRevision: ExpectedRevision = mode === 'any' ? 'any' : (current ?? 'no_stream');
    try {
      const result = await store.appendToStream(name, batch, { expectedRevision });
      revisions.set(name, result.nextExpectedRevision);
    } catch {
      // An exact append that lost to a concurrent one: refused, nothing written.
    }
  };
  for (let i = 0; i < appends.length; i += 3) await Promise.all(appends.slice(i, i + 3).map(run));
  const head = await raw.headPosition();
  await raw.close();
  return head === null ? 0 : Number(head);
};

const verifyFile = async (log: TempLog) => {
  const store = log.open();
  try {
    return await verifyStore(store, secret, { pageSize: 16 });
  } finally {
    await store.close();
  }
};

/** The first byte edit at or after `seed` that keeps the data valid JSON and changes its value. */
const editOneByte = (text: string, seed: number, charSeed: number): string | null => {
  const alphabet = 'aZ09 x"{}[],:-.e';
  for (let k = 0; k < text.length; k++) {
    const i = (seed + k) % text.length;
    for (let c = 0; c < alphabet.length; c++) {
      const replacement = alphabet[(charSeed + c) % alphabet.length];
      if (replacement === text[i]) continue;
      const edited = text.slice(0, i) + replacement + text.slice(i + 1);
      try {
        if (canonicalJson(JSON.parse(edited)) !== canonicalJson(JSON.parse(text))) return edited;
      } catch {
        // not JSON any more: the store could not even read it; try another byte
      }
    }
  }
  return null;
};

describe('chain properties on SQLite', () => {
  it('any workload written through withHashChain verifies clean', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(appendArb, { minLength: 1, maxLength: 25 }), async (appends) => {
        const log = tempLog();
        try {
          const written = await write(log, appends);
          const report = await verifyFile(log);
          expect(report.findings).toEqual([]);
          expect(report).toMatchObject({ ok: true, events: written, chained: written });
        } finally {
          log.cleanup();
        }
      }),
      { numRuns: 25 },
    );
  });

  it('one single-byte edit of any event data is found at that position, and only it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(appendArb, { minLength: 1, maxLength: 20 }),
        fc.nat(),
        fc.nat(),
        fc.nat(),
        async (appends, eventSeed, byteSeed, charSeed) => {
          const log = tempLog();
          try {
            const written = await write(log, appends);
            const position = (eventSeed % written) + 1;
            const attacker = openAttacker(log.file);
            const edited = editOneByte(attacker.row(position).data, byteSeed, charSeed);
            if (edited !== null) attacker.setData(position, edited);
            attacker.close();
            fc.pre(edited !== null);
            const report = await verifyFile(log);
            expect(report.findings.map((f) => [f.kind, Number(f.position)])).toEqual([
              ['modified', position],
            ]);
          } finally {
            log.cleanup();
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
