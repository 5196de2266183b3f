export type FindingKind = 'modified' | 'removed' | 'reordered' | 'inserted';

export const FINDING_KINDS: readonly FindingKind[] = [
  'modified',
  'removed',
  'reordered',
  'inserted',
];

export interface Finding {
  kind: FindingKind;
  streamName: string;
  /** Position of the event concerned; for `removed`, of the first event after the gap. */
  position: bigint;
  revision: bigint;
  missing?: { from: bigint; to: bigint };
  detail: string;
}
