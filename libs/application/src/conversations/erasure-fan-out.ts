import { type ReadModelBackend } from '@arbor/projections';

type ErasureListener = (tenantId: string, conversationId: string) => void;

/** Empties every process's caches of an erased conversation: this one's now, others' by pub/sub. */
export class ErasureFanOut {
  private readonly listeners: ErasureListener[] = [];

  constructor(private readonly backend: () => ReadModelBackend | null) {}

  on(listener: ErasureListener): void {
    this.listeners.push(listener);
  }

  heard(tenantId: string, conversationId: string): void {
    for (const l of this.listeners) l(tenantId, conversationId);
  }

  /**
   * A dropped message only leaves content in one replica's memory, never in an answer: every
   * route checks the shared key store's tombstone before any cache.
   */
  async announce(tenantId: string, conversationId: string): Promise<void> {
    this.heard(tenantId, conversationId);
    await this.backend()?.publishErasure(tenantId, conversationId);
  }
}
