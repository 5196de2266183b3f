// A fold in position order with state per stream. An event that fails at its stored revision
// is tried where it could have been chained, so a renumbering is reported once.
import { type RecordedEvent } from '@arbor/event-store';
import { chainHasher, readChain, withoutChain } from './chain';
import { type Finding, type FindingKind } from './findings';
import {
  closeStream,
  confirmAhead,
  fillGap,
  heldAt,
  hold,
  holdSuspect,
  newStreamState,
  pullAhead,
  type Report,
  settleSuspect,
  START,
  type StreamState,
} from './stream-chain';

export interface VerifierOptions {
  maxFindings?: number;
  searchWindow?: number;
}

export interface VerifierReport {
  /** No findings. Unchained events are a warning, not a failure. */
  ok: boolean;
  events: number;
  chained: number;
  streams: number;
  unchained: { count: number; streams: number; firstPosition: bigint | null };
  totals: Record<FindingKind, number>;
  findings: Finding[];
  findingsDropped: number;
  firstPosition: bigint | null;
  lastPosition: bigint | null;
}

type Link = { prev: string | null; hash: string };

export const createVerifier = (secret: Buffer, options: VerifierOptions = {}) => {
  const maxFindings = options.maxFindings ?? 10_000;
  const window = BigInt(options.searchWindow ?? 64);
  const streams = new Map<string, StreamState>();
  const findings: Finding[] = [];
  const totals: Record<FindingKind, number> = {
    modified: 0,
    removed: 0,
    reordered: 0,
    inserted: 0,
  };
  const unchained = { count: 0, streams: new Set<string>(), firstPosition: null as bigint | null };
  let events = 0;
  let chained = 0;
  let firstPosition: bigint | null = null;
  let lastPosition: bigint | null = null;

  const reporter =
    (streamName: string): Report =>
    (kind, position, revision, detail, missing) => {
      totals[kind] += 1;
      if (findings.length < maxFindings) {
        findings.push({
          kind,
          streamName,
          position,
          revision,
          detail,
          ...(missing && { missing }),
        });
      }
    };

  const chainedRevision = (
    event: RecordedEvent,
    link: Link,
    st: StreamState,
    prevFollows: boolean,
  ): bigint | undefined => {
    const at = chainHasher(secret, {
      streamName: event.streamName,
      eventId: event.id,
      type: event.type,
      data: event.data,
      metadata: withoutChain(event.metadata),
      prev: link.prev,
    });
    const stored = event.revision;
    // The common case: it verifies where it is stored. The rest only runs on a tampered log.
    if (at(stored) === link.hash) return stored;
    const tried = new Set<bigint>([stored]);
    const verifiesAt = (revision: bigint): boolean => {
      if (revision < 0n || tried.has(revision)) return false;
      tried.add(revision);
      return at(revision) === link.hash;
    };
    if (verifiesAt(stored + st.head.shift)) return stored + st.head.shift;
    if (verifiesAt(st.head.rev + 1n)) return st.head.rev + 1n;
    if (prevFollows) return undefined;
    for (let d = 1n; d <= window; d++) {
      if (verifiesAt(stored + d)) return stored + d;
      if (verifiesAt(stored - d)) return stored - d;
    }
    return undefined;
  };

  const unlinked = (event: RecordedEvent, st: StreamState, malformed: boolean, report: Report) => {
    settleSuspect(st, undefined, report);
    if (!malformed && !st.chained) {
      unchained.count += 1;
      unchained.streams.add(event.streamName);
      unchained.firstPosition ??= event.position;
      st.head = { ...START, rev: event.revision, position: event.position };
      return;
    }
    report(
      'modified',
      event.position,
      event.revision,
      malformed
        ? 'chain metadata is malformed'
        : 'chain metadata is missing, after chained events of its stream',
    );
    const rev = event.revision + st.head.shift;
    st.head = { ...st.head, rev, hash: undefined, prev: undefined, position: event.position };
    st.chained = true;
  };

  const accept = (
    event: RecordedEvent,
    st: StreamState,
    link: Link,
    rev: bigint,
    report: Report,
  ) => {
    const { head } = st;
    const { position, revision } = event;
    if (head.hash !== undefined && link.prev !== head.hash) {
      report(
        'reordered',
        position,
        revision,
        `chained after another event than revision ${head.rev} (position ${head.position})`,
      );
    } else if (rev !== revision && rev - revision !== head.shift && !st.shiftExplained) {
      report('reordered', position, revision, `stored as revision ${revision}, chained as ${rev}`);
    }
    st.head = { rev, hash: link.hash, prev: link.prev, shift: rev - revision, position };
    st.shiftExplained = false;
    st.chained = true;
    pullAhead(st, report);
  };

  const linked = (event: RecordedEvent, st: StreamState, link: Link, report: Report) => {
    const { position, revision } = event;
    chained += 1;
    settleSuspect(st, link.prev, report);
    const head = st.head;
    const expected = head.rev + 1n;
    const prevFollows = head.hash === undefined || link.prev === head.hash;
    const rev = chainedRevision(event, link, st, prevFollows);

    if (rev === undefined) {
      if (!prevFollows && head.prev !== undefined && link.prev === head.prev) {
        report(
          'inserted',
          position,
          revision,
          `does not verify, and chains from the same predecessor as revision ${head.rev} (position ${head.position})`,
        );
        st.shiftExplained = true;
        return;
      }
      holdSuspect(st, { position, stored: revision }, link);
      return;
    }
    if (rev < expected) {
      if (fillGap(st, rev)) {
        report(
          'reordered',
          position,
          revision,
          `revision ${rev} comes after revision ${head.rev} (position ${head.position})`,
        );
      } else {
        report('inserted', position, revision, `a second event chained as revision ${rev}`);
      }
      return;
    }
    if (rev > expected) {
      const before = heldAt(st, rev - 1n);
      if (before !== undefined && before.hash === link.prev) {
        // It continues events held ahead: they were not misplaced, what is missing below them was removed.
        confirmAhead(st, rev - 1n, report);
        accept(event, st, link, rev, report);
      } else if (heldAt(st, rev) !== undefined) {
        report('inserted', position, revision, `a second event chained as revision ${rev}`);
      } else {
        const held = { rev, hash: link.hash, prev: link.prev, shift: rev - revision, position };
        hold(st, { ...held, stored: revision }, report);
      }
      return;
    }
    accept(event, st, link, rev, report);
  };

  return {
    add(event: RecordedEvent): void {
      events += 1;
      firstPosition ??= event.position;
      lastPosition = event.position;
      let st = streams.get(event.streamName);
      if (st === undefined) {
        st = newStreamState();
        streams.set(event.streamName, st);
      }
      const report = reporter(event.streamName);
      const chain = readChain(event.metadata);
      if (chain.kind === 'link') linked(event, st, chain.link, report);
      else unlinked(event, st, chain.kind === 'malformed', report);
    },

    finish(): VerifierReport {
      for (const [streamName, st] of streams) closeStream(st, reporter(streamName));
      const total = Object.values(totals).reduce((a, b) => a + b, 0);
      findings.sort((a, b) => (a.position < b.position ? -1 : a.position > b.position ? 1 : 0));
      return {
        ok: total === 0,
        events,
        chained,
        streams: streams.size,
        unchained: {
          count: unchained.count,
          streams: unchained.streams.size,
          firstPosition: unchained.firstPosition,
        },
        totals: { ...totals },
        findings: [...findings],
        findingsDropped: total - findings.length,
        firstPosition,
        lastPosition,
      };
    },
  };
};

export type Verifier = ReturnType<typeof createVerifier>;
