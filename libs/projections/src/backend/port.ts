import { type EventStore } from '@arbor/event-store';
import { type ProjectorStatus } from '../projector';
import { type ReadModelQueries } from '../read-model-port';
import { type RedisTarget } from '../redis/connection';

export type ReadWait =
  | { ok: true; queries: ReadModelQueries }
  | { ok: false; reason: 'unavailable' | 'lagging'; message: string };

export interface ProjectionProgress {
  head: bigint | null;
  partitions: {
    partition: number;
    position: bigint | null;
    lagPositions: bigint | null;
    ownedHere: boolean;
    token: number | null;
  }[];
  leaseChanges: { acquired: number; lost: number; released: number } | null;
}

/** The read side's storage; the application decides when to wait and what a refusal answers. */
export interface ReadModelBackend {
  readonly kind: 'sqlite' | 'redis';
  queries(): ReadModelQueries;
  /** With `keyId`, also the startup floor (SQLite) or that key's write on any replica (Redis). */
  waitFor(position: bigint | null, keyId: string | null, timeoutMs: number): Promise<ReadWait>;
  /** Keeps a key's last write position where other replicas see it (Redis; SQLite: nothing). */
  noteWrite(keyId: string, position: bigint): Promise<void>;
  publishErasure(tenantId: string, conversationId: string): Promise<void>;
  dropErasedRows(tenantId: string, conversationId: string): Promise<number>;
  /** Makes deleted rows' old pages unreadable on disk (SQLite WAL checkpoint). */
  compactAfterErasure(): void;
  status(): ProjectorStatus;
  progress(): Promise<ProjectionProgress>;
  leases(): Promise<Map<string, number>>;
  rebuild(onProgress?: (position: bigint) => void): Promise<{ position: string | null }>;
  dump(): Promise<string>;
  close(): Promise<void>;
}

export interface BackendLog {
  error(line: string): void;
  warn(line: string): void;
  log(line: string): void;
  debug(line: string): void;
}

export interface HeadWake {
  wake(): void;
  publishTo(publish: ((position: bigint) => Promise<unknown>) | null): void;
}

export interface ReadModelBackendOptions {
  store: EventStore;
  dataDir: string;
  redis: RedisTarget | null;
  redisPrefix: string;
  partitions: number;
  leaseMs: number;
  workerId: string;
  projector: boolean;
  /** SQLite: start and catch up the projector at open (false: only to rebuild). */
  catchUp?: boolean;
  checkpointIntervalMs?: number;
  branchCacheMiB: number;
  headSignal?: HeadWake;
  onApplied?: (streams: { streamName: string; revision: bigint }[]) => void;
  /** Signals may have been lost (a pub/sub reconnect): every follower looks again. */
  onResync?: () => void;
  onErasure?: (tenantId: string, conversationId: string) => void;
  onRedisError?: (error: unknown) => void;
  log: BackendLog;
}
