/** In-memory chained events, and array edits that mirror tampering (tests only). */
import { type RecordedEvent } from '@arbor/event-store';
import { chainHash } from '../chain';

const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

/** Chained events for `streams`, one per entry in `order` (a stream name), positions from 1. */
export const chainedLog = (secret: Buffer, order: readonly string[]): RecordedEvent[] => {
  const last = new Map<string, { revision: bigint; hash: string | null }>();
  return order.map((streamName, index) => {
    const before = last.get(streamName) ?? { revision: -1n, hash: null };
    const revision = before.revision + 1n;
    const id = uuid(index + 1);
    const data = { n: index, text: `event ${index} of ${streamName}` };
    const metadata = { tenantId: 't', actor: 'a', timestamp: '2025-01-01T00:00:00.000Z' };
    const hash = chainHash(secret, {
      streamName,
      revision,
      eventId: id,
      type: 'Thing',
      data,
      metadata,
      prev: before.hash,
    });
    last.set(streamName, { revision, hash });
    return {
      id,
      streamName,
      revision,
      position: BigInt(index + 1),
      type: 'Thing',
      data,
      metadata: { ...metadata, chain: { v: 1, prev: before.hash, hash } },
      created: new Date(0),
    };
  });
};

/** Positions 1..n in array order, as an attacker keeping the log gap-free would leave them. */
export const renumberPositions = (events: readonly RecordedEvent[]): RecordedEvent[] =>
  events.map((event, i) => ({ ...event, position: BigInt(i + 1) }));

export const move = (events: readonly RecordedEvent[], from: number, to: number) => {
  const copy = [...events];
  const [moved] = copy.splice(from, 1);
  copy.splice(to, 0, moved);
  return renumberPositions(copy);
};
