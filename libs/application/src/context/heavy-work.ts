import { Inject, Injectable } from '@nestjs/common';
import { ARBOR_CONFIG, type ArborConfig } from '../config/config';
import { AppError } from '../errors';

/**
 * A tenant's heavy calls at once (context assembly, the context report, exports), at most
 * `ARBOR_HEAVY_PER_TENANT` in this process: one more is refused at once (`429 heavy_work_busy`,
 * `Retry-After: 1`) instead of queueing ahead of other tenants' work in the pool.
 */
@Injectable()
export class HeavyWorkGate {
  private readonly running = new Map<string, number>();
  private readonly cap: number;

  constructor(@Inject(ARBOR_CONFIG) config: ArborConfig) {
    this.cap = config.heavy.perTenant;
  }

  /** The tenant's heavy calls running now. */
  runningFor(tenantId: string): number {
    return this.running.get(tenantId) ?? 0;
  }

  async run<T>(tenantId: string, work: () => Promise<T>): Promise<T> {
    const n = this.runningFor(tenantId);
    if (n >= this.cap) {
      throw new AppError(
        'heavy_work_busy',
        `This tenant already runs ${n} heavy calls (context assembly, snapshot rendering, exports) ` +
          `at once, the most it may; retry after 1 s.`,
        { limit: this.cap, retryAfterSeconds: 1 },
      );
    }
    this.running.set(tenantId, n + 1);
    try {
      return await work();
    } finally {
      const left = this.runningFor(tenantId) - 1;
      if (left > 0) this.running.set(tenantId, left);
      else this.running.delete(tenantId);
    }
  }
}
