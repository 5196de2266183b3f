import fc from 'fast-check';
import { canonicalJson } from '@arbor/domain/fingerprint';
import { InvalidEventError } from '@arbor/event-store';
import {
  asStoredJson,
  chainHash,
  chainHasher,
  chainInput,
  type ChainFields,
  linkHashOf,
  readChain,
  withoutChain,
} from './chain';

const secret = Buffer.alloc(32, 7);
const fields: ChainFields = {
  streamName: 'conv-t.c1',
  revision: 3n,
  eventId: '7b6b2c55-1d4c-4a4e-9f3e-0a1b2c3d4e5f',
  type: 'MessageAppended',
  data: { b: 1, a: [1, { z: 'x', y: null }] },
  metadata: { tenantId: 't', actor: 'a', timestamp: '2025-01-01T00:00:00.000Z' },
  prev: null,
};

describe('chainInput', () => {
  it('is canonical JSON of every covered field, keys sorted, revision as a string', () => {
    expect(chainInput(fields)).toBe(
      '{"data":{"a":[1,{"y":null,"z":"x"}],"b":1},"id":"7b6b2c55-1d4c-4a4e-9f3e-0a1b2c3d4e5f",' +
        '"metadata":{"actor":"a","tenantId":"t","timestamp":"2025-01-01T00:00:00.000Z"},' +
        '"prev":null,"revision":"3","stream":"conv-t.c1","type":"MessageAppended","v":1}',
    );
  });

  it('does not depend on key order', () => {
    const reordered = { ...fields, data: { a: [1, { y: null, z: 'x' }], b: 1 } };
    expect(chainHash(secret, reordered)).toBe(chainHash(secret, fields));
  });

  it.each([
    ['streamName', { streamName: 'conv-t.c2' }],
    ['revision', { revision: 4n }],
    ['eventId', { eventId: '7b6b2c55-1d4c-4a4e-9f3e-0a1b2c3d4e50' }],
    ['type', { type: 'TipMoved' }],
    ['data', { data: { b: 2, a: [1, { z: 'x', y: null }] } }],
    ['metadata', { metadata: { ...fields.metadata, actor: 'b' } }],
    ['prev', { prev: 'a'.repeat(64) }],
  ])('changes when %s changes', (_name, change) => {
    expect(chainHash(secret, { ...fields, ...change })).not.toBe(chainHash(secret, fields));
  });

  it('depends on the secret', () => {
    expect(chainHash(Buffer.alloc(32, 8), fields)).not.toBe(chainHash(secret, fields));
  });
});

describe('chainHasher', () => {
  it('equals chainHash at every revision, for any JSON content', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.string(),
        fc.string(),
        fc.option(fc.stringMatching(/^[0-9a-f]{64}$/), { nil: null }),
        fc.bigInt({ min: 0n, max: 2n ** 62n }),
        (data, metadata, streamName, type, prev, revision) => {
          const base = { ...fields, data, metadata, streamName, type, prev };
          expect(chainHasher(secret, base)(revision)).toBe(
            chainHash(secret, { ...base, revision }),
          );
        },
      ),
    );
  });
});

describe('readChain', () => {
  const hash = 'ab'.repeat(32);
  it('reads a link', () => {
    expect(readChain({ chain: { v: 1, prev: null, hash } })).toEqual({
      kind: 'link',
      link: { v: 1, prev: null, hash },
    });
    expect(linkHashOf({ chain: { v: 1, prev: hash, hash } })).toBe(hash);
  });
  it('tells absent from malformed', () => {
    expect(readChain({ actor: 'x' }).kind).toBe('absent');
    expect(linkHashOf({ actor: 'x' })).toBeNull();
    for (const chain of [
      'x',
      null,
      { v: 2, prev: null, hash },
      { v: 1, prev: null, hash: 'nothex' },
      { v: 1, prev: 'short', hash },
      { v: 1, hash },
    ]) {
      expect(readChain({ chain }).kind).toBe('malformed');
    }
  });
});

describe('withoutChain / asStoredJson', () => {
  it('drops only the chain', () => {
    expect(withoutChain({ tenantId: 't', actor: 'a', timestamp: 'x', chain: { v: 1 } })).toEqual({
      tenantId: 't',
      actor: 'a',
      timestamp: 'x',
    });
  });
  it('gives values back as the log will (Date → string, undefined dropped)', () => {
    const when = new Date('2025-01-01T00:00:00.000Z');
    expect(asStoredJson({ when, gone: undefined, list: [undefined] }, 'data', 0)).toEqual({
      when: '2025-01-01T00:00:00.000Z',
      list: [null],
    });
  });
  it('refuses what is not JSON', () => {
    expect(() => asStoredJson({ n: 1n }, 'data', 2)).toThrow(InvalidEventError);
    expect(() => asStoredJson(undefined, 'data', 2)).toThrow(InvalidEventError);
  });
});

describe('asStoredJson hashes what the verifier will see', () => {
  class Point {
    constructor(
      readonly x: number,
      readonly y: number,
    ) {}
  }
  const exotic = fc.oneof(
    fc.constant(undefined),
    fc.constant(() => 1),
    fc.constant(Symbol('s')),
    fc.date({ noInvalidDate: true }),
    fc.constant(new Point(1, 2)),
    fc.constant({ toJSON: () => 'custom' }),
    fc.constant(new Map([['a', 1]])),
    fc.constant(Object.assign(Object.create(null) as object, { b: 1, a: 2 })),
    fc.constant([1, , 3]), // eslint-disable-line no-sparse-arrays
    fc.constant(Number.NaN),
    fc.constant(-0),
  );
  const value = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small' },
      fc.jsonValue({ maxDepth: 1 }),
      exotic,
      fc.array(tie('node'), { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 3 }), tie('node'), { maxKeys: 3 }),
    ),
  })).node;

  it('canonical JSON of it equals canonical JSON of the value after a JSON round trip', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 3 }), value, { maxKeys: 4 }), (data) => {
        const roundTrip = JSON.parse(JSON.stringify(data)) as unknown;
        expect(canonicalJson(asStoredJson(data, 'data', 0))).toBe(canonicalJson(roundTrip));
      }),
      { numRuns: 500 },
    );
  });
});
