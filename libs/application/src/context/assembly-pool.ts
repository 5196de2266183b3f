import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import Piscina from 'piscina';
import {
  createPageCache,
  createTokenCache,
  failureText,
  type RenderPages,
  type Summarize,
  type SummaryRequest,
} from '@arbor/context';
import { ARBOR_CONFIG, type ArborConfig } from '../config/config';
import {
  type AssemblyInput,
  type AssemblyOutcome,
  type AssemblyTask,
  runAssembly,
} from './assembly';
import { type PooledTask, type SummaryReply } from './assembly.worker';
import { RENDER_PAGES, SUMMARIZE } from './context.providers';

/** The worker's file beside this one: `.ts` under swc (dev, tests), `.js` in the build. */
const WORKER_FILE = path.join(__dirname, `assembly.worker${path.extname(__filename)}`);

/** A `.ts` worker needs the swc hook the main thread may have got another way (jest). */
const workerExecArgv = (): string[] => {
  const argv = [...process.execArgv];
  if (WORKER_FILE.endsWith('.ts') && !argv.some((a) => a.includes('@swc-node/register'))) {
    argv.push('-r', '@swc-node/register');
  }
  return argv;
};

/**
 * Context assembly and snapshot rendering off the request loop: a piscina pool of
 * `ARBOR_HEAVY_THREADS` worker threads running `runAssembly` (0 threads: the same function in
 * this thread). The answer is the same bytes either way; only where the CPU time is spent moves.
 * The summarizer (network I/O, not CPU) is called here, for the worker, over a message port.
 */
@Injectable()
export class AssemblyPool implements OnModuleDestroy {
  private readonly pool: Piscina | null;
  /** Bumped by `forgetCaches`: each worker empties its caches before its next task. */
  private generation = 0;
  private tokenCache = createTokenCache();
  private pageCache = createPageCache();

  constructor(
    @Inject(ARBOR_CONFIG) config: ArborConfig,
    @Inject(RENDER_PAGES) private readonly renderPages: RenderPages | null,
    @Inject(SUMMARIZE) private readonly summarize: Summarize | null,
  ) {
    this.pool =
      config.heavy.threads === 0
        ? null
        : new Piscina({
            filename: WORKER_FILE,
            minThreads: 0,
            maxThreads: config.heavy.threads,
            // A call waiting on the summarizer (network) must not hold a thread others need.
            concurrentTasksPerWorker: 16,
            // Workers go after a minute idle (their caches with them).
            idleTimeout: 60_000,
            execArgv: workerExecArgv(),
          });
  }

  get threads(): number {
    return this.pool?.options.maxThreads ?? 0;
  }

  /** After an erasure: no cache, here or in a worker, serves what it held before. */
  forgetCaches(): void {
    this.generation++;
    this.tokenCache = createTokenCache();
    this.pageCache = createPageCache();
  }

  /** Assembles `input` with the configured renderer and summarizer (when there are). */
  async run(input: AssemblyInput): Promise<AssemblyOutcome> {
    const task: AssemblyTask = {
      input,
      render: this.renderPages !== null,
      summarize: this.summarize !== null,
    };
    if (this.pool === null) {
      return runAssembly(task, {
        tokenCache: this.tokenCache,
        pageCache: this.pageCache,
        renderPages: this.renderPages,
        summarize: this.summarize,
        newId: () => randomUUID(),
      });
    }
    const { port1, port2 } = new MessageChannel();
    const summarize = this.summarize;
    port1.on('message', (request: SummaryRequest) => {
      const answer = (reply: SummaryReply) => port1.postMessage(reply);
      if (summarize === null) {
        answer({ ok: false, error: 'no summarizer configured' });
        return;
      }
      summarize(request).then(
        (result) => answer({ ok: true, result }),
        (e: unknown) => answer({ ok: false, error: failureText(e) }),
      );
    });
    const pooled: PooledTask = {
      task,
      generation: this.generation,
      port: port2,
    };
    try {
      return (await this.pool.run(pooled, { transferList: [port2] })) as AssemblyOutcome;
    } finally {
      port1.close();
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool?.destroy();
  }
}
