import { type AppendResult, type ExpectedRevision } from '../types';
import { type PreparedEvent } from './prepare-events';

export interface QueuedAppend {
  stream: string;
  events: readonly PreparedEvent[];
  expected: ExpectedRevision;
}

export type AppendOutcome = { ok: true; result: AppendResult } | { ok: false; error: unknown };

export interface GroupCommitter {
  enqueue(append: QueuedAppend): Promise<AppendResult>;
  flush(): void;
}

interface Waiting {
  append: QueuedAppend;
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

/** Appends of one event-loop turn in one transaction, each under its own savepoint (README). */
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
