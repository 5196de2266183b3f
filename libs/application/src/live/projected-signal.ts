import { type RecordedEvent } from '@arbor/event-store';
import { lastRevisions } from '@arbor/projections';

/** "Stream `streamName` is projected up to `revision`": what a live stream waits for. */
export interface ProjectedSignal {
  streamName: string;
  revision: bigint;
}

/**
 * The port between the projection and the live streams (`GET …/stream`). The projector publishes
 * the last revision it applied per stream; a stream follower subscribes to one stream name and,
 * when woken, reads the new events from the log itself — so a signal carries no event data and a
 * duplicated signal costs nothing but a read. In one process the projector publishes here
 * directly; with Redis every process's `InProcessProjectedSignals` is fed by the workers'
 * `applied` messages (Redis pub/sub, see `ReadModelsService`), so a stream on any replica is
 * woken by whichever worker projected its conversation. Pub/sub may lose messages (a subscriber
 * that reconnects): then `resync()` tells every follower to look for itself.
 */
export interface ProjectedSignals {
  publish(signals: readonly ProjectedSignal[]): void;
  /**
   * Calls `listener` for every signal of `streamName` until the returned function is called;
   * `null`: signals may have been lost, the follower finds the projected revision itself.
   */
  subscribe(streamName: string, listener: (revision: bigint | null) => void): () => void;
  /** Every follower is called with `null` (after a pub/sub reconnect). */
  resync(): void;
}

export const PROJECTED_SIGNALS = Symbol('PROJECTED_SIGNALS');

/** One signal per stream: the last revision of that stream in a projected batch. */
export const signalsOf = (events: readonly RecordedEvent[]): ProjectedSignal[] =>
  lastRevisions(events);

/** The single-process fan-out: listeners by stream name, each called synchronously. */
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

  /** Streams with at least one follower (for tests and metrics). */
  followedStreams(): number {
    return this.listeners.size;
  }
}
