/** Verifier state for one stream, bounded: one head, one suspect, at most MAX_AHEAD held events. */
import { type FindingKind } from './findings';

export interface Head {
  rev: bigint;
  /** Its hash: null when it has none (no event yet, or unchained); undefined when unreadable. */
  hash: string | null | undefined;
  prev: string | null | undefined;
  /** Chained revision − stored revision (non-zero after a renumbering). */
  shift: bigint;
  position: bigint | null;
}

export interface Held extends Head {
  position: bigint;
  stored: bigint;
}

interface Suspect {
  position: bigint;
  stored: bigint;
  prev: string | null;
  before: Head;
}

interface Gap {
  from: bigint;
  to: bigint;
  position: bigint;
  stored: bigint;
}

export interface StreamState {
  head: Head;
  chained: boolean;
  shiftExplained: boolean;
  suspect?: Suspect;
  gaps?: Gap[];
  ahead?: Map<bigint, Held>;
}

export type Report = (
  kind: FindingKind,
  position: bigint,
  stored: bigint,
  detail: string,
  missing?: { from: bigint; to: bigint },
) => void;

export const MAX_AHEAD = 64;

export const START: Head = { rev: -1n, hash: null, prev: undefined, shift: 0n, position: null };

export const newStreamState = (): StreamState => ({
  head: START,
  chained: false,
  shiftExplained: false,
});

const span = (from: bigint, to: bigint) => (from === to ? `${from}` : `${from}..${to}`);

/** The next event of the stream claims `nextPrev`: the pending suspect was inserted or modified. */
export const settleSuspect = (
  st: StreamState,
  nextPrev: string | null | undefined,
  report: Report,
): void => {
  const suspect = st.suspect;
  if (suspect === undefined) return;
  st.suspect = undefined;
  if (nextPrev !== undefined && nextPrev === suspect.prev) {
    report(
      'inserted',
      suspect.position,
      suspect.stored,
      'does not verify, and the next event of its stream chains from the same predecessor: ' +
        'it is not part of the chain',
    );
    st.head = suspect.before;
    st.shiftExplained = true;
    return;
  }
  report(
    'modified',
    suspect.position,
    suspect.stored,
    'hash does not verify: data, type, metadata or id edited, or written without the secret',
  );
};

/** Accepts an event that does not verify at any revision, until the next event says what it is. */
export const holdSuspect = (
  st: StreamState,
  at: { position: bigint; stored: bigint },
  link: { prev: string | null; hash: string },
): void => {
  const rev = st.head.rev + 1n;
  st.suspect = { position: at.position, stored: at.stored, prev: link.prev, before: st.head };
  st.head = {
    rev,
    hash: link.hash,
    prev: link.prev,
    shift: rev - at.stored,
    position: at.position,
  };
  st.chained = true;
};

const recordGap = (st: StreamState, to: bigint, at: Held): void => {
  (st.gaps ??= []).push({ from: st.head.rev + 1n, to, position: at.position, stored: at.stored });
};

export const fillGap = (st: StreamState, rev: bigint): boolean => {
  const gaps = st.gaps ?? [];
  const index = gaps.findIndex((g) => g.from <= rev && rev <= g.to);
  if (index < 0) return false;
  const gap = gaps[index];
  const rest: Gap[] = [];
  if (gap.from < rev) rest.push({ ...gap, to: rev - 1n });
  if (rev < gap.to) rest.push({ ...gap, from: rev + 1n });
  gaps.splice(index, 1, ...rest);
  return true;
};

export const hold = (st: StreamState, held: Held, report: Report): void => {
  st.ahead ??= new Map();
  st.ahead.set(held.rev, held);
  if (st.ahead.size > MAX_AHEAD) confirmAhead(st, null, report);
};

export const heldAt = (st: StreamState, rev: bigint): Held | undefined => st.ahead?.get(rev);

/**
 * The held events up to `upTo` (all when null) are where the chain continues: revisions missing
 * below each are recorded as gaps (removed, unless they turn up later).
 */
export const confirmAhead = (st: StreamState, upTo: bigint | null, report: Report): void => {
  const ahead = st.ahead;
  if (ahead === undefined) return;
  const revs = [...ahead.keys()]
    .filter((rev) => upTo === null || rev <= upTo)
    .sort((a, b) => (a < b ? -1 : 1));
  for (const rev of revs) {
    const held = ahead.get(rev) as Held;
    ahead.delete(rev);
    if (rev <= st.head.rev) {
      report('inserted', held.position, held.stored, `a second event chained as revision ${rev}`);
      continue;
    }
    if (rev > st.head.rev + 1n) recordGap(st, rev - 1n, held);
    else if (st.head.hash !== undefined && held.prev !== st.head.hash) {
      report(
        'reordered',
        held.position,
        held.stored,
        `chained after another event than revision ${st.head.rev}`,
      );
    }
    st.head = held;
  }
  if (ahead.size === 0) st.ahead = undefined;
};

export const pullAhead = (st: StreamState, report: Report): void => {
  for (let held = heldAt(st, st.head.rev + 1n); held; held = heldAt(st, st.head.rev + 1n)) {
    st.ahead?.delete(held.rev);
    report(
      'reordered',
      held.position,
      held.stored,
      `revision ${held.rev} comes before revision ${st.head.rev} (position ${st.head.position})`,
    );
    st.head = held;
  }
  if (st.ahead?.size === 0) st.ahead = undefined;
};

export const closeStream = (st: StreamState, report: Report): void => {
  settleSuspect(st, undefined, report);
  confirmAhead(st, null, report);
  for (const gap of st.gaps ?? []) {
    report(
      'removed',
      gap.position,
      gap.stored,
      `revision ${span(gap.from, gap.to)} of the chain is missing before this event`,
      { from: gap.from, to: gap.to },
    );
  }
  st.gaps = undefined;
};
