import { type EventStore } from '@arbor/event-store';
import { type ProjectionProgress } from '@arbor/projections';
import { type PartitionLag } from '../metrics/metrics.service';

const lagOf = async (
  store: EventStore,
  head: bigint | null,
  applied: bigint | null,
): Promise<PartitionLag> => {
  if (head === null || (applied !== null && applied >= head)) return { events: 0, seconds: 0 };
  const from = applied === null ? 'start' : applied;
  const next = (await store.readAll({ fromPosition: from, maxCount: 2 })).find(
    (e) => applied === null || e.position > applied,
  );
  return {
    events: Number(head - (applied ?? 0n)),
    seconds: next === undefined ? 0 : Math.max(0, (Date.now() - next.created.getTime()) / 1000),
  };
};

export const projectionLags = async (
  store: EventStore,
  progress: ProjectionProgress,
): Promise<Map<string, PartitionLag>> => {
  const out = new Map<string, PartitionLag>();
  for (const p of progress.partitions) {
    out.set(String(p.partition), await lagOf(store, progress.head, p.position));
  }
  return out;
};
