import fc from 'fast-check';
import { EventStoreError } from '../errors';
import { type AllFilter } from '../types';
import {
  checkpointSettings,
  exactTypesRegex,
  isSystemEvent,
  NON_SYSTEM_TYPE_REGEX,
  planFilter,
  type ServerFilter,
  toEsdbFilter,
} from './esdb-filter';

/** What the server does with a filter (one field only); JS regexes agree with .NET on ours. */
const serverPasses = (server: ServerFilter, e: { streamName: string; type: string }): boolean =>
  server.on === 'streamName'
    ? server.prefixes.some((p) => e.streamName.startsWith(p))
    : new RegExp(server.regex).test(e.type);

/** The port's meaning of a filter, written independently of the adapter. */
const portAccepts = (filter: AllFilter | undefined, e: { streamName: string; type: string }) =>
  !e.type.startsWith('$') &&
  !e.streamName.startsWith('$') &&
  (filter?.streamPrefixes === undefined ||
    filter.streamPrefixes.some((p) => e.streamName.startsWith(p))) &&
  (filter?.eventTypes === undefined || filter.eventTypes.includes(e.type));

const piece = fc.constantFrom('a', 'b', 'x-', '$', '.', '*', '(', '|', '[', '\\', '^', 'é', '-1');
const word = fc.array(piece, { minLength: 0, maxLength: 4 }).map((parts) => parts.join(''));
const eventArb = fc.record({ streamName: word, type: word.filter((t) => t.length > 0) });
const filterArb: fc.Arbitrary<AllFilter | undefined> = fc.option(
  fc.record(
    {
      streamPrefixes: fc.array(word, { maxLength: 3 }),
      eventTypes: fc.array(word, { maxLength: 3 }),
    },
    { requiredKeys: [] },
  ),
  { nil: undefined },
);

describe('planFilter', () => {
  it('accepts exactly what the port filter means (both parts AND-ed, system events out)', () => {
    fc.assert(
      fc.property(filterArb, eventArb, (filter, e) => {
        expect(planFilter(filter).accepts(e)).toBe(portAccepts(filter, e));
      }),
    );
  });

  it('never lets the server drop an event the port filter accepts', () => {
    fc.assert(
      fc.property(filterArb, fc.array(eventArb, { maxLength: 20 }), (filter, events) => {
        const plan = planFilter(filter);
        for (const e of events) {
          if (plan.accepts(e)) expect(serverPasses(plan.server, e)).toBe(true);
        }
      }),
    );
  });

  it('filters on stream prefixes server-side when given, event types client-side', () => {
    const plan = planFilter({ streamPrefixes: ['conv-t1.'], eventTypes: ['MessageAppended'] });
    expect(plan.server).toEqual({ on: 'streamName', prefixes: ['conv-t1.'] });
    expect(plan.accepts({ streamName: 'conv-t1.c', type: 'MessageAppended' })).toBe(true);
    expect(plan.accepts({ streamName: 'conv-t1.c', type: 'TipMoved' })).toBe(false);
    expect(plan.accepts({ streamName: 'conv-t2.c', type: 'MessageAppended' })).toBe(false);
  });

  it('filters on event types server-side with an anchored, escaped regex when only types are given', () => {
    const plan = planFilter({ eventTypes: ['A.B', 'C'] });
    expect(plan.server).toEqual({ on: 'eventType', regex: '^(?:A\\.B|C)$' });
    expect(serverPasses(plan.server, { streamName: 's', type: 'AxB' })).toBe(false);
    expect(serverPasses(plan.server, { streamName: 's', type: 'CC' })).toBe(false);
  });

  it('without a filter, or with an empty list (matches nothing), the server only drops system events', () => {
    for (const filter of [undefined, {}, { streamPrefixes: [] }, { eventTypes: [] }]) {
      expect(planFilter(filter).server).toEqual({ on: 'eventType', regex: NON_SYSTEM_TYPE_REGEX });
    }
    expect(planFilter({ streamPrefixes: [] }).accepts({ streamName: 'a', type: 'A' })).toBe(false);
    expect(planFilter(undefined).accepts({ streamName: 'a', type: 'A' })).toBe(true);
    expect(new RegExp(NON_SYSTEM_TYPE_REGEX).test('$metadata')).toBe(false);
  });

  it('treats events of $ types or $ streams as system events', () => {
    expect(isSystemEvent({ streamName: '$stats-1', type: 'x' })).toBe(true);
    expect(isSystemEvent({ streamName: 's', type: '$>' })).toBe(true);
    expect(isSystemEvent({ streamName: 's', type: 'x' })).toBe(false);
  });

  it('escapes every regex metacharacter in event types', () => {
    const types = ['a+b', '(x)', '[y]', 'z|w', '^$', 'q?', 'r*', 's{1}', 't\\u'];
    const regex = new RegExp(exactTypesRegex(types));
    for (const t of types) expect(regex.test(t)).toBe(true);
    expect(regex.test('ab')).toBe(false);
    expect(regex.test('x')).toBe(false);
  });
});

describe('checkpoint settings', () => {
  it('is exact up to 32 events and rounds up to a multiple of 32 above', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000 }), (interval) => {
        const { maxSearchWindow, checkpointInterval } = checkpointSettings(interval);
        const every = maxSearchWindow * checkpointInterval;
        expect(every).toBeGreaterThanOrEqual(interval);
        expect(every).toBeLessThan(interval + 32);
        if (interval <= 32) expect(every).toBe(interval);
      }),
    );
    expect(checkpointSettings(32)).toEqual({ maxSearchWindow: 32, checkpointInterval: 1 });
  });

  it('refuses intervals below 1', () => {
    expect(() => checkpointSettings(0)).toThrow(EventStoreError);
    expect(() => checkpointSettings(2.5)).toThrow(EventStoreError);
  });

  it('builds the client filter object for either field', () => {
    const reached = () => undefined;
    expect(toEsdbFilter({ on: 'streamName', prefixes: ['p'] }, 64, reached)).toEqual({
      filterOn: 'streamName',
      prefixes: ['p'],
      maxSearchWindow: 32,
      checkpointInterval: 2,
      checkpointReached: reached,
    });
    expect(toEsdbFilter({ on: 'eventType', regex: '^a$' }, 8, reached)).toEqual({
      filterOn: 'eventType',
      regex: '^a$',
      maxSearchWindow: 8,
      checkpointInterval: 1,
      checkpointReached: reached,
    });
  });
});
