import { type RecordedEvent } from '@arbor/event-store';
import { lastRevisions } from '@arbor/projections';

export interface ProjectedSignal {
  streamName: string;
  revision: bigint;
}

/** Projection → live streams: signals carry no data, so a duplicate costs only a log read. */
export interface ProjectedSignals {
  publish(signals: readonly ProjectedSignal[]): void;
  /** `null`: signals may have been lost; the follower finds the projected revision itself. */
  subscribe(streamName: string, listener: (revision: bigint | null) => void): () => void;
  resync(): void;
}

export const PROJECTED_SIGNALS = Symbol('PROJECTED_SIGNALS');

export const signalsOf = (events: readonly RecordedEvent[]): ProjectedSignal[] =>
  lastRevisions(events);

export class InProcessProjectedSignals implements ProjectedSignals {
  private readonly listeners = new Map<string, Set<(revision: bigint | null) => void>>();

  private call(set: Iterable<(revision: bigint | null) => void>, revision: bigint | null): void {
    for (const listener of [...set]) {
      try {
        listener(revision);
      } catch {
        // One follower's failure never stops the others (or the projector).
      }
    }
  }

  publish(signals: readonly ProjectedSignal[]): void {
    for (const s of signals) {
      const set = this.listeners.get(s.streamName);
      if (set !== undefined) this.call(set, s.revision);
    }
  }

  resync(): void {
    for (const set of [...this.listeners.values()]) this.call(set, null);
  }

  subscribe(streamName: string, listener: (revision: bigint | null) => void): () => void {
    let set = this.listeners.get(streamName);
    if (set === undefined) {
      set = new Set();
      this.listeners.set(streamName, set);
    }
    set.add(listener);
    return () => {
      const s = this.listeners.get(streamName);
      if (s === undefined) return;
      s.delete(listener);
      if (s.size === 0) this.listeners.delete(streamName);
    };
  }

  followedStreams(): number {
    return this.listeners.size;
  }
}
