import { randomBytes } from 'node:crypto';
import { availableParallelism, hostname } from 'node:os';
import path from 'node:path';
import { summaryConfigFromEnv, type SummaryEnvConfig } from '@arbor/context';
import { type RedisTarget } from '@arbor/projections';

export type Synchronous = 'OFF' | 'NORMAL' | 'FULL' | 'EXTRA';

export type KeyStoreKind = 'sqlite' | 'esdb';

/** Everything the service reads from its environment, parsed once at start-up. */
export interface ArborConfig {
  port: number;
  host: string;
  dataDir: string;
  /** Without it, admin calls are refused. */
  adminKey: string | null;
  eventStoreConnectionString: string | null;
  /**
   * Where Redis is, when the read models live there (else SQLite beside the log): REDIS_URL
   * (one node) or REDIS_CLUSTER_URLS (a Redis Cluster's seed nodes, comma-separated); never both.
   */
  redis: RedisTarget | null;
  /** ARBOR_REDIS_PREFIX (default `arbor`): every Redis key starts with it. */
  redisPrefix: string;
  /**
   * The scaled shape (REDIS_URL or REDIS_CLUSTER_URLS only). ARBOR_PROJECTOR (`on`, default): this process joins the
   * projector pool; `off` (`arbor serve --projector off`): a pure API replica.
   */
  projector: boolean;
  /** ARBOR_PARTITIONS (default 4): conversation streams hashed into this many partitions. */
  partitions: number;
  /** ARBOR_LEASE_MS (default 5000): a dead worker's partitions are free again after this. */
  leaseMs: number;
  /** ARBOR_WORKER_ID: this process's name in the pool (default host:pid:random). */
  workerId: string;
  synchronous: Synchronous;
  /** SQLite group commit: concurrent appends share one transaction (and one fsync). */
  groupCommit: boolean;
  /** ARBOR_SQLITE_CHECKPOINT_MS (default 500): WAL checkpoints on this timer, not inside commits; 0 = SQLite's autocheckpoint. */
  checkpointIntervalMs: number;
  /** ARBOR_BRANCH_CACHE_MIB (default 24): parsed active-branch windows kept, in MiB of stored JSON; 0 = off. */
  branchCacheMiB: number;
  /** Largest accepted request body, in bytes. */
  bodyLimitBytes: number;
  /** Largest accepted image, decoded, in bytes. */
  maxImageBytes: number;
  /** How long a read waits for the projections to reach the caller's last write. */
  readYourWritesTimeoutMs: number;
  logLevel: string;
  /** Write-side state cache bound, in messages held across all cached conversations. */
  stateCacheMessages: number;
  /** Events between write-side snapshots (`<dataDir>/state-snapshots.sqlite`); 0 turns them off. */
  stateSnapshotEvery: number;
  /** ARBOR_AUDIT_SECRET (hex or base64, ≥ 32 bytes); unset → `<dataDir>/audit.key`, created once. */
  auditSecret: string | null;
  /**
   * ARBOR_ENCRYPTION (default on): seal conversation content in the log with per-conversation
   * data keys, so erasure can destroy it. Off: new events are stored in clear (sealed ones still read).
   */
  encryption?: boolean;
  /** ARBOR_MASTER_KEY (32 bytes, hex or base64); unset → `<dataDir>/master.key`, created once. */
  masterKey?: string | null;
  /**
   * ARBOR_KEY_STORE: where the data keys live. `sqlite` (`<dataDir>/keys.sqlite`, one machine) or
   * `esdb` (streams in the EventStoreDB of EVENTSTORE_CONNECTION_STRING, shared by every machine).
   * Default: `esdb` when the log is EventStoreDB, else `sqlite`.
   */
  keyStore?: KeyStoreKind;
  /** ARBOR_RETENTION_SWEEP_MS: how often `serve` applies the tenants' retention (0: never). */
  retentionSweepMs?: number;
  /** Request and answer limits (`ARBOR_*` below); each one's problem code is in the README. */
  limits: LimitsConfig;
  /** The default per-tenant rate limit (ARBOR_RATE_LIMIT_RPS, 0 = unlimited; ARBOR_RATE_LIMIT_BURST). */
  rateLimits: { ratePerSecond: number; burst: number };
  /** ARBOR_METRICS_PORT: `GET /metrics` also on this port, without credentials (null: off). */
  metricsPort: number | null;
  /** Live streams (`GET …/stream`): open streams per tenant, heartbeat period. */
  streams: StreamsConfig;
  /** Heavy work (context assembly, snapshot rendering): worker threads, per-tenant cap, rate charge. */
  heavy: HeavyWorkConfig;
  /** The summary rung's model (ARBOR_SUMMARY_*); without a key and model the rung is unavailable. */
  summary: SummaryEnvConfig & { contextWindowTokens: number; maxSummaryTokens: number };
}

const summaryConfig = (env: NodeJS.ProcessEnv): ArborConfig['summary'] => {
  try {
    return {
      ...summaryConfigFromEnv(env),
      contextWindowTokens: int(env, 'ARBOR_SUMMARY_WINDOW_TOKENS', 200_000, 2048),
      maxSummaryTokens: int(env, 'ARBOR_SUMMARY_MAX_TOKENS', 4096, 256),
    };
  } catch (e) {
    if (e instanceof RangeError) throw new ConfigError(e.message);
    throw e;
  }
};

export class ConfigError extends Error {}

export interface StreamsConfig {
  /** ARBOR_STREAM_MAX_PER_TENANT (default 32): a tenant's open streams; one more is `429 too_many_streams`. */
  maxPerTenant: number;
  /** ARBOR_STREAM_HEARTBEAT_MS (default 15000): a comment line this often keeps proxies and the idle timeout away. */
  heartbeatMs: number;
}

const streamsConfig = (env: NodeJS.ProcessEnv): StreamsConfig => ({
  maxPerTenant: int(env, 'ARBOR_STREAM_MAX_PER_TENANT', 32, 1),
  heartbeatMs: int(env, 'ARBOR_STREAM_HEARTBEAT_MS', 15_000, 10),
});

export interface HeavyWorkConfig {
  /**
   * ARBOR_HEAVY_THREADS (default: cores − 1, at least 1): worker threads that assemble contexts
   * and render snapshot pages off the request loop; 0 runs them in the request loop.
   */
  threads: number;
  /** ARBOR_HEAVY_PER_TENANT (default 2): a tenant's heavy calls at once; one more is `429 heavy_work_busy`. */
  perTenant: number;
  /**
   * ARBOR_CONTEXT_CHARGE_BYTES (default 262144): a context call takes one more rate-limit token
   * per this many bytes of history it assembled, and one per snapshot page it rendered.
   */
  contextChargeBytes: number;
}

const heavyConfig = (env: NodeJS.ProcessEnv): HeavyWorkConfig => ({
  threads: int(env, 'ARBOR_HEAVY_THREADS', Math.max(1, availableParallelism() - 1), 0),
  perTenant: int(env, 'ARBOR_HEAVY_PER_TENANT', 2, 1),
  contextChargeBytes: int(env, 'ARBOR_CONTEXT_CHARGE_BYTES', 256 * 1024, 1024),
});

/** Every bound on what a client may send or be sent; see the README's limits table. */
export interface LimitsConfig {
  /** ARBOR_JSON_MAX_DEPTH: deepest nesting of any free-form JSON field (metadata, inputs, …). */
  jsonMaxDepth: number;
  /** ARBOR_JSON_MAX_BYTES: largest JSON text of any free-form field. */
  jsonMaxBytes: number;
  /** ARBOR_PAGE_MAX_BYTES: a list page stops before passing this many bytes of items. */
  pageMaxBytes: number;
  /** ARBOR_ANSWER_MAX_BYTES: an answer that is not a page (tree, replay) is refused above this. */
  answerMaxBytes: number;
  /** ARBOR_MAX_HEADER_BYTES: all request headers together (Node's maxHeaderSize). */
  maxHeaderBytes: number;
  /** ARBOR_HEADERS_TIMEOUT_MS: the whole header block must arrive within this. */
  headersTimeoutMs: number;
  /** ARBOR_REQUEST_TIMEOUT_MS: headers and body must arrive within this (slow bodies are cut). */
  requestTimeoutMs: number;
  /** ARBOR_CONNECTION_TIMEOUT_MS: a socket idle this long is closed. */
  connectionTimeoutMs: number;
  /** ARBOR_KEEP_ALIVE_TIMEOUT_MS: an idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** ARBOR_MAX_CONNECTIONS: open connections in total. */
  maxConnections: number;
  /** ARBOR_MAX_CONNECTIONS_PER_IP: open connections from one client address. */
  maxConnectionsPerIp: number;
  /** ARBOR_MAX_REQUESTS_PER_SOCKET: requests on one keep-alive connection before it is closed. */
  maxRequestsPerSocket: number;
  /** ARBOR_IDEMPOTENCY_TTL_HOURS: how long an Idempotency-Key and its answer are kept. */
  idempotencyTtlHours: number;
}

const limitsConfig = (env: NodeJS.ProcessEnv): LimitsConfig => ({
  jsonMaxDepth: int(env, 'ARBOR_JSON_MAX_DEPTH', 64, 2),
  jsonMaxBytes: int(env, 'ARBOR_JSON_MAX_BYTES', 1024 * 1024, 64),
  pageMaxBytes: int(env, 'ARBOR_PAGE_MAX_BYTES', 4 * 1024 * 1024, 1024),
  answerMaxBytes: int(env, 'ARBOR_ANSWER_MAX_BYTES', 32 * 1024 * 1024, 1024),
  maxHeaderBytes: int(env, 'ARBOR_MAX_HEADER_BYTES', 16 * 1024, 1024),
  headersTimeoutMs: int(env, 'ARBOR_HEADERS_TIMEOUT_MS', 10_000, 100),
  requestTimeoutMs: int(env, 'ARBOR_REQUEST_TIMEOUT_MS', 30_000, 100),
  connectionTimeoutMs: int(env, 'ARBOR_CONNECTION_TIMEOUT_MS', 60_000, 100),
  keepAliveTimeoutMs: int(env, 'ARBOR_KEEP_ALIVE_TIMEOUT_MS', 5_000, 100),
  maxConnections: int(env, 'ARBOR_MAX_CONNECTIONS', 1024, 1),
  maxConnectionsPerIp: int(env, 'ARBOR_MAX_CONNECTIONS_PER_IP', 128, 1),
  maxRequestsPerSocket: int(env, 'ARBOR_MAX_REQUESTS_PER_SOCKET', 10_000, 1),
  idempotencyTtlHours: int(env, 'ARBOR_IDEMPOTENCY_TTL_HOURS', 24, 1),
});

const int = (env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number => {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) {
    throw new ConfigError(`${name} must be an integer ≥ ${min}, got ${JSON.stringify(raw)}`);
  }
  return n;
};

const nonEmpty = (v: string | undefined): string | null => (v && v.trim() !== '' ? v : null);

/**
 * REDIS_URL (one node, taken as given, as before) or REDIS_CLUSTER_URLS: the seed nodes of a
 * Redis Cluster, `redis://host:port` or `rediss://…` (TLS), comma-separated; node-redis discovers
 * the other masters from them (one reachable seed is enough). Credentials and TLS of the first
 * apply to every node. No database index: a cluster has only database 0.
 */
export const redisTargetOf = (env: NodeJS.ProcessEnv): RedisTarget | null => {
  const url = nonEmpty(env.REDIS_URL);
  const list = nonEmpty(env.REDIS_CLUSTER_URLS);
  if (url !== null && list !== null) {
    throw new ConfigError(
      'REDIS_URL and REDIS_CLUSTER_URLS are exclusive: set REDIS_URL for one Redis node or REDIS_CLUSTER_URLS for a Redis Cluster, not both',
    );
  }
  if (url !== null) return { kind: 'node', url };
  if (list === null) return null;
  const urls = list.split(',').map((u) => u.trim());
  const seen = new Set<string>();
  for (const u of urls) {
    const bad = (why: string) =>
      new ConfigError(
        `REDIS_CLUSTER_URLS: ${JSON.stringify(u)} ${why} (expected redis://host:port,redis://host:port,…)`,
      );
    if (u === '') throw bad('is empty');
    let parsed: URL;
    try {
      parsed = new URL(u);
    } catch {
      throw bad('is not a URL');
    }
    if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:')
      throw bad('must start with redis:// or rediss://');
    if (parsed.hostname === '' || parsed.port === '') throw bad('needs a host and a port');
    if (parsed.pathname !== '' && parsed.pathname !== '/')
      throw bad('names a database; a Redis Cluster has only database 0');
    if (parsed.search !== '' || parsed.hash !== '') throw bad('has options; none are read');
    const at = `${parsed.hostname}:${parsed.port}`;
    if (seen.has(at)) throw bad('is listed twice');
    seen.add(at);
  }
  return { kind: 'cluster', urls };
};

const SYNC: readonly Synchronous[] = ['OFF', 'NORMAL', 'FULL', 'EXTRA'];

const onOff = (env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean => {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '') return fallback;
  if (['on', 'true', '1'].includes(raw)) return true;
  if (['off', 'false', '0'].includes(raw)) return false;
  throw new ConfigError(`${name} must be on or off, got ${JSON.stringify(env[name])}`);
};

/** ARBOR_KEY_STORE, checked against the log it goes with. */
export const keyStoreOf = (env: NodeJS.ProcessEnv): KeyStoreKind => {
  const esdb = nonEmpty(env.EVENTSTORE_CONNECTION_STRING) !== null;
  const raw = (env.ARBOR_KEY_STORE ?? '').trim().toLowerCase();
  if (raw === '') return esdb ? 'esdb' : 'sqlite';
  if (raw !== 'sqlite' && raw !== 'esdb') {
    throw new ConfigError(
      `ARBOR_KEY_STORE must be sqlite or esdb, got ${JSON.stringify(env.ARBOR_KEY_STORE)}`,
    );
  }
  if (raw === 'esdb' && !esdb) {
    throw new ConfigError(
      'ARBOR_KEY_STORE=esdb keeps the keys in EventStoreDB: set EVENTSTORE_CONNECTION_STRING too',
    );
  }
  return raw;
};

/** Pure: the environment in, a validated config out (or a ConfigError naming the variable). */
export const readConfig = (env: NodeJS.ProcessEnv, cwd = process.cwd()): ArborConfig => {
  const synchronous = (env.ARBOR_SQLITE_SYNCHRONOUS ?? 'FULL').toUpperCase();
  if (!SYNC.includes(synchronous as Synchronous)) {
    throw new ConfigError(`ARBOR_SQLITE_SYNCHRONOUS must be one of ${SYNC.join(', ')}`);
  }
  const adminKey = nonEmpty(env.ARBOR_ADMIN_KEY);
  if (adminKey !== null && adminKey.length < 16) {
    throw new ConfigError('ARBOR_ADMIN_KEY must be at least 16 characters');
  }
  return {
    port: int(env, 'PORT', 3000),
    // Loopback unless told otherwise: the Docker image sets HOST=0.0.0.0.
    host: env.HOST ?? '127.0.0.1',
    dataDir: path.resolve(cwd, env.ARBOR_DATA_DIR ?? './data'),
    adminKey,
    eventStoreConnectionString: nonEmpty(env.EVENTSTORE_CONNECTION_STRING),
    redis: redisTargetOf(env),
    redisPrefix: nonEmpty(env.ARBOR_REDIS_PREFIX) ?? 'arbor',
    projector: onOff(env, 'ARBOR_PROJECTOR', true),
    partitions: int(env, 'ARBOR_PARTITIONS', 4, 1),
    leaseMs: int(env, 'ARBOR_LEASE_MS', 5000, 300),
    workerId:
      nonEmpty(env.ARBOR_WORKER_ID) ??
      `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`,
    synchronous: synchronous as Synchronous,
    groupCommit: onOff(env, 'ARBOR_SQLITE_GROUP_COMMIT', true),
    checkpointIntervalMs: int(env, 'ARBOR_SQLITE_CHECKPOINT_MS', 500, 0),
    branchCacheMiB: int(env, 'ARBOR_BRANCH_CACHE_MIB', 24, 0),
    bodyLimitBytes: int(env, 'ARBOR_BODY_LIMIT_BYTES', 32 * 1024 * 1024, 1024),
    maxImageBytes: int(env, 'ARBOR_MAX_IMAGE_BYTES', 5 * 1024 * 1024, 1),
    readYourWritesTimeoutMs: int(env, 'ARBOR_READ_TIMEOUT_MS', 2000, 0),
    logLevel: env.LOG_LEVEL ?? 'info',
    stateCacheMessages: int(env, 'ARBOR_STATE_CACHE_MESSAGES', 200_000, 1),
    stateSnapshotEvery: int(env, 'ARBOR_STATE_SNAPSHOT_EVERY', 1000, 0),
    summary: summaryConfig(env),
    limits: limitsConfig(env),
    streams: streamsConfig(env),
    heavy: heavyConfig(env),
    rateLimits: {
      ratePerSecond: int(env, 'ARBOR_RATE_LIMIT_RPS', 0, 0),
      burst: int(
        env,
        'ARBOR_RATE_LIMIT_BURST',
        Math.max(1, 2 * int(env, 'ARBOR_RATE_LIMIT_RPS', 0, 0)),
        1,
      ),
    },
    metricsPort:
      nonEmpty(env.ARBOR_METRICS_PORT) === null ? null : int(env, 'ARBOR_METRICS_PORT', 0),
    auditSecret: nonEmpty(env.ARBOR_AUDIT_SECRET),
    encryption: onOff(env, 'ARBOR_ENCRYPTION', true),
    masterKey: nonEmpty(env.ARBOR_MASTER_KEY),
    keyStore: keyStoreOf(env),
    retentionSweepMs: int(env, 'ARBOR_RETENTION_SWEEP_MS', 60 * 60 * 1000, 0),
  };
};

export const ARBOR_CONFIG = Symbol('ARBOR_CONFIG');
