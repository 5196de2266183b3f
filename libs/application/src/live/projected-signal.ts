import { type RecordedEvent } from '@arbor/event-store';

/** "Stream `streamName` is projected up to `revision`": what a live stream waits for. */
export interface ProjectedSignal {
  streamName: string;
  revision: bigint;
}

/**
 * The port between the projection and the live streams (`GET …/stream`). The projector publishes
 * the last revision it applied per stream; a stream follower subscribes to one stream name and,
 * when woken, reads the new events from the log itself — so a signal carries no event data and a
 * lost or duplicated signal costs nothing but a read. In one process this is an in-memory fan-out
 * (`InProcessProjectedSignals`); across replicas an adapter publishes on Redis pub/sub and fans
 * out locally the same way (bind another implementation to `PROJECTED_SIGNALS`).
 */
export interface ProjectedSignals {
  publish(signals: readonly ProjectedSignal[]): void;
  /** Calls `listener` for every signal of `streamName` until the returned function is called. */
  subscribe(streamName: string, listener: (revision: bigint) => void): () => void;
}

export const PROJECTED_SIGNALS = Symbol('PROJECTED_SIGNALS');

/** One signal per stream: the last revision of that stream in a projected batch. */
export const signalsOf = (events: readonly RecordedEvent[]): ProjectedSignal[] => {
  const last = new Map<string, bigint>();
  for (const e of events) {
    const prev = last.get(e.streamName);
    if (prev === undefined || e.revision > prev) last.set(e.streamName, e.revision);
  }
  return [...last].map(([streamName, revision]) => ({ streamName, revision }));
};

/** The single-process fan-out: listeners by stream name, each called synchronously. */
export class InProcessProjectedSignals implements ProjectedSignals {
  private readonly listeners = new Map<string, Set<(revision: bigint) => void>>();

  publish(signals: readonly ProjectedSignal[]): void {
    for (const s of signals) {
      const set = this.listeners.get(s.streamName);
      if (set === undefined) continue;
      for (const listener of [...set]) {
        try {
          listener(s.revision);
        } catch {
          // One follower's failure never stops the others (or the projector).
        }
      }
    }
  }

  subscribe(streamName: string, listener: (revision: bigint) => void): () => void {
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
