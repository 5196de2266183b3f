import { type AppendResult, type ExpectedRevision } from '../types';
import { type PreparedEvent } from './prepare-events';

/** One append waiting for the next group commit. */
export interface QueuedAppend {
  stream: string;
  events: readonly PreparedEvent[];
  expected: ExpectedRevision;
}

/** What one append of a batch came to: its result, or the store-rule error that refused it. */
export type AppendOutcome = { ok: true; result: AppendResult } | { ok: false; error: unknown };

export interface GroupCommitter {
  /** Queues an append for the next batch; settles once that batch is committed (or refused). */
  enqueue(append: QueuedAppend): Promise<AppendResult>;
  /** Commits whatever is queued now (before close). */
  flush(): void;
}

interface Waiting {
  append: QueuedAppend;
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: appends made during one turn of the event loop (typically one per concurrent
 * request) wait for a `setImmediate` and are then written in ONE write transaction, so they share
 * its fsync. `commitBatch` runs every append under its own savepoint, in arrival order, and returns
 * one outcome per append: each append stays all-or-nothing and is checked (expected revision,
 * idempotency) against the log as the appends before it in the batch left it — exactly as if they
 * had been committed one by one. If the transaction itself fails (busy, I/O), `commitBatch` throws
 * and every append of the batch is refused with that error: nothing is acknowledged that was not
 * committed. `afterCommit` runs once per committed batch (to wake subscriptions).
 */
export const createGroupCommitter = (
  commitBatch: (appends: readonly QueuedAppend[]) => AppendOutcome[],
  afterCommit: () => void,
  maxBatch = 1024,
): GroupCommitter => {
  let queue: Waiting[] = [];
  let scheduled: NodeJS.Immediate | null = null;

  const flush = (): void => {
    if (scheduled !== null) clearImmediate(scheduled);
    scheduled = null;
    if (queue.length === 0) return;
    const batch = queue;
    queue = [];
    let outcomes: AppendOutcome[];
    try {
      outcomes = commitBatch(batch.map((w) => w.append));
    } catch (error) {
      for (const w of batch) w.reject(error);
      return;
    }
    afterCommit();
    batch.forEach((w, i) => {
      const outcome = outcomes[i];
      if (outcome.ok) w.resolve(outcome.result);
      else w.reject(outcome.error);
    });
  };

  return {
    enqueue: (append) =>
      new Promise<AppendResult>((resolve, reject) => {
        queue.push({ append, resolve, reject });
        if (queue.length >= maxBatch) flush();
        else if (scheduled === null) scheduled = setImmediate(flush);
      }),
    flush,
  };
};
