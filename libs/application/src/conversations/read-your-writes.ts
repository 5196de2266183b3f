import { type Logger } from '@nestjs/common';
import { type ReadModelBackend, type ReadModelQueries, type ReadWait } from '@arbor/projections';
import { AppError } from '../errors';

const answer = (wait: ReadWait): ReadModelQueries => {
  if (wait.ok) return wait.queries;
  throw new AppError(
    wait.reason === 'lagging' ? 'projection_lagging' : 'read_models_unavailable',
    wait.message,
  );
};

export class ReadYourWrites {
  private readonly lastWrite = new Map<string, bigint>();

  constructor(
    private readonly backend: () => ReadModelBackend,
    private readonly timeoutMs: number,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {}

  /** A failure to share the position never fails the write: the log has it. */
  async noteWrite(keyId: string, position: bigint | null): Promise<void> {
    if (position === null) return;
    const prev = this.lastWrite.get(keyId);
    if (prev === undefined || position > prev) this.lastWrite.set(keyId, position);
    try {
      await this.backend().noteWrite(keyId, position);
    } catch (e) {
      this.logger.warn(`redis: the write position of key ${keyId} was not kept: ${String(e)}`);
    }
  }

  async forCaller(keyId: string): Promise<ReadModelQueries> {
    const written = this.lastWrite.get(keyId) ?? null;
    return answer(await this.backend().waitFor(written, keyId, this.timeoutMs));
  }

  async upTo(position: bigint | null): Promise<ReadModelQueries> {
    return answer(await this.backend().waitFor(position, null, this.timeoutMs));
  }
}
