import { type ReadModelBackend } from '@arbor/projections';

type ErasureListener = (tenantId: string, conversationId: string) => void;

export class ErasureFanOut {
  private readonly listeners: ErasureListener[] = [];

  constructor(private readonly backend: () => ReadModelBackend | null) {}

  on(listener: ErasureListener): void {
    this.listeners.push(listener);
  }

  heard(tenantId: string, conversationId: string): void {
    for (const l of this.listeners) l(tenantId, conversationId);
  }

  /** A lost message leaves content only in memory: every route checks the tombstone first. */
  async announce(tenantId: string, conversationId: string): Promise<void> {
    this.heard(tenantId, conversationId);
    await this.backend()?.publishErasure(tenantId, conversationId);
  }
}
