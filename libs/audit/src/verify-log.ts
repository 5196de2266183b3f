import { type EventStore, type RecordedEvent } from '@arbor/event-store';
import { createVerifier, type VerifierOptions, type VerifierReport } from './verifier';

export interface VerifyProgress {
  events: number;
  position: bigint;
}

export interface VerifyOptions extends VerifierOptions {
  onProgress?: (progress: VerifyProgress) => void;
}

export interface VerifyReport extends VerifierReport {
  elapsedMs: number;
  eventsPerSecond: number;
}

export type EventSource =
  | AsyncIterable<RecordedEvent | readonly RecordedEvent[]>
  | Iterable<RecordedEvent | readonly RecordedEvent[]>;

export interface ReadAllPagesOptions {
  pageSize?: number;
  /** Default: the head when reading starts, so appends made meanwhile do not keep it running. */
  toPosition?: bigint | null;
}

export async function* readAllPages(
  store: EventStore,
  options: ReadAllPagesOptions = {},
): AsyncGenerator<RecordedEvent[]> {
  const pageSize = options.pageSize ?? 5_000;
  const last = options.toPosition === undefined ? await store.headPosition() : options.toPosition;
  if (last === null) return;
  let from: bigint | 'start' = 'start';
  for (;;) {
    const page = await store.readAll({ fromPosition: from, maxCount: pageSize });
    const kept = page.filter((event) => event.position <= last);
    if (kept.length > 0) yield kept;
    const end = page[page.length - 1];
    if (page.length < pageSize || end === undefined || end.position >= last) return;
    from = end.position + 1n;
  }
}

const PROGRESS_EVERY = 5_000;

/** Verifies every event of `source` (events or pages, in position order) and reports the findings. */
export const verifyLog = async (
  source: EventSource,
  secret: Buffer,
  options: VerifyOptions = {},
): Promise<VerifyReport> => {
  const started = process.hrtime.bigint();
  const verifier = createVerifier(secret, options);
  let count = 0;
  let sinceProgress = 0;
  const progress = (position: bigint) => {
    sinceProgress = 0;
    options.onProgress?.({ events: count, position });
  };
  for await (const item of source) {
    if (Array.isArray(item)) {
      const page = item as readonly RecordedEvent[];
      for (const event of page) verifier.add(event);
      count += page.length;
      if (page.length > 0) progress(page[page.length - 1].position);
    } else {
      const event = item as RecordedEvent;
      verifier.add(event);
      count += 1;
      if (++sinceProgress >= PROGRESS_EVERY) progress(event.position);
    }
  }
  const report = verifier.finish();
  const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
  return {
    ...report,
    elapsedMs,
    eventsPerSecond: elapsedMs > 0 ? Math.round((report.events * 1000) / elapsedMs) : 0,
  };
};

export const verifyStore = (
  store: EventStore,
  secret: Buffer,
  options: VerifyOptions & ReadAllPagesOptions = {},
): Promise<VerifyReport> => verifyLog(readAllPages(store, options), secret, options);
