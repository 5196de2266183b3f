/**
 * The worker thread of `AssemblyPool` (piscina): assembles contexts and renders snapshot pages
 * off the request loop. Its caches are its own; a task of a newer cache generation (an erasure
 * happened) starts them empty first. The summarizer stays in the main thread, asked over the
 * task's port.
 */
import { randomUUID } from 'node:crypto';
import { type MessagePort } from 'node:worker_threads';
import {
  createPageCache,
  createTokenCache,
  type SummaryRequest,
  type SummaryResult,
} from '@arbor/context';
import { renderPages } from '@arbor/snapshots';
import { type AssemblyOutcome, type AssemblyTask, runAssembly } from './assembly';

export interface PooledTask {
  task: AssemblyTask;
  generation: number;
  /** Summary requests go out on it, `{ok, result}` / `{ok: false, error}` come back. */
  port: MessagePort;
}

export type SummaryReply = { ok: true; result: SummaryResult } | { ok: false; error: string };

let generation = -1;
let tokenCache = createTokenCache();
let pageCache = createPageCache();

const summarizeOver =
  (port: MessagePort) =>
  (request: SummaryRequest): Promise<SummaryResult> =>
    new Promise((resolve, reject) => {
      port.once('message', (reply: SummaryReply) =>
        reply.ok ? resolve(reply.result) : reject(new Error(reply.error)),
      );
      port.postMessage(request);
    });

export default async function assemble({
  task,
  generation: g,
  port,
}: PooledTask): Promise<AssemblyOutcome> {
  if (g !== generation) {
    generation = g;
    tokenCache = createTokenCache();
    pageCache = createPageCache();
  }
  try {
    return await runAssembly(task, {
      tokenCache,
      pageCache,
      renderPages: (text, shape) => renderPages(text, shape),
      summarize: summarizeOver(port),
      newId: () => randomUUID(),
    });
  } finally {
    port.close();
  }
}
