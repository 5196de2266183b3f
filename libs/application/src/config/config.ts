import { randomBytes } from 'node:crypto';
import { availableParallelism, hostname } from 'node:os';
import path from 'node:path';
import { SUMMARY_PROVIDER_NAMES, type SummaryProviderName } from '@arbor/context';
import { type RedisTarget } from '@arbor/projections';
import { z } from 'zod';

const SYNC = ['OFF', 'NORMAL', 'FULL', 'EXTRA'] as const;
export type Synchronous = (typeof SYNC)[number];

export type KeyStoreKind = 'sqlite' | 'esdb';

/** Parsed once at start-up; each variable's meaning is in docs/configuration.md. */
export interface ArborConfig {
  port: number;
  host: string;
  dataDir: string;
  adminKey: string | null;
  eventStoreConnectionString: string | null;
  redis: RedisTarget | null;
  redisPrefix: string;
  projector: boolean;
  partitions: number;
  leaseMs: number;
  workerId: string;
  synchronous: Synchronous;
  groupCommit: boolean;
  checkpointIntervalMs: number;
  branchCacheMiB: number;
  bodyLimitBytes: number;
  maxImageBytes: number;
  readYourWritesTimeoutMs: number;
  logLevel: string;
  stateCacheMessages: number;
  stateSnapshotEvery: number;
  auditSecret: string | null;
  encryption?: boolean;
  masterKey?: string | null;
  keyStore?: KeyStoreKind;
  retentionSweepMs?: number;
  limits: LimitsConfig;
  rateLimits: { ratePerSecond: number; burst: number };
  metricsPort: number | null;
  streams: StreamsConfig;
  heavy: HeavyWorkConfig;
  summary: SummaryEnvConfig & { contextWindowTokens: number; maxSummaryTokens: number };
}

export class ConfigError extends Error {}

export interface SummaryEnvConfig {
  provider: SummaryProviderName;
  baseUrl?: string;
  apiKey?: string;
  model?: string;
}

export interface StreamsConfig {
  maxPerTenant: number;
  heartbeatMs: number;
}

export interface HeavyWorkConfig {
  threads: number;
  perTenant: number;
  contextChargeBytes: number;
}

export interface LimitsConfig {
  jsonMaxDepth: number;
  jsonMaxBytes: number;
  pageMaxBytes: number;
  answerMaxBytes: number;
  maxHeaderBytes: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  connectionTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
  maxConnectionsPerIp: number;
  maxRequestsPerSocket: number;
  idempotencyTtlHours: number;
}

const blank = (v: unknown): unknown => (typeof v === 'string' && v.trim() === '' ? undefined : v);

const wholeNumber = (min: number) => {
  const wanted = `must be an integer ≥ ${min}`;
  return z.coerce.number({ error: wanted }).int({ error: wanted }).min(min, { error: wanted });
};
const int = (fallback: number, min = 0) => z.preprocess(blank, wholeNumber(min).default(fallback));
const maybeInt = (min = 0) => z.preprocess(blank, wholeNumber(min).optional());

const onOff = (fallback: boolean) =>
  z.preprocess(
    (v) => (typeof blank(v) === 'string' ? (v as string).trim().toLowerCase() : undefined),
    z
      .enum(['on', 'true', '1', 'off', 'false', '0'], { error: 'must be on or off' })
      .optional()
      .transform((v) => (v === undefined ? fallback : v === 'on' || v === 'true' || v === '1')),
  );

const text = () => z.preprocess(blank, z.string().optional());
const trimmed = () =>
  z.preprocess((v) => (typeof v === 'string' ? blank(v.trim()) : v), z.string().optional());

/** REDIS_CLUSTER_URLS: seed nodes, comma-separated; the first's credentials and TLS apply to all. */
const clusterUrls = z.preprocess(
  blank,
  z
    .string()
    .transform((list, ctx) => {
      const urls = list.split(',').map((u) => u.trim());
      const seen = new Set<string>();
      const why = (u: string): string | null => {
        if (u === '') return 'is empty';
        let parsed: URL;
        try {
          parsed = new URL(u);
        } catch {
          return 'is not a URL';
        }
        if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:')
          return 'must start with redis:// or rediss://';
        if (parsed.hostname === '' || parsed.port === '') return 'needs a host and a port';
        if (parsed.pathname !== '' && parsed.pathname !== '/')
          return 'names a database; a Redis Cluster has only database 0';
        if (parsed.search !== '' || parsed.hash !== '') return 'has options; none are read';
        const at = `${parsed.hostname}:${parsed.port}`;
        if (seen.has(at)) return 'is listed twice';
        seen.add(at);
        return null;
      };
      for (const u of urls) {
        const bad = why(u);
        if (bad !== null) {
          ctx.addIssue({
            code: 'custom',
            message: `: ${JSON.stringify(u)} ${bad} (expected redis://host:port,redis://host:port,…)`,
          });
          return z.NEVER;
        }
      }
      return urls;
    })
    .optional(),
);

export const ENV_SCHEMA = z
  .object({
    PORT: int(3000),
    HOST: text().default('127.0.0.1'),
    ARBOR_DATA_DIR: text().default('./data'),
    ARBOR_ADMIN_KEY: text().pipe(
      z.string().min(16, { error: 'must be at least 16 characters' }).optional(),
    ),
    LOG_LEVEL: text().default('info'),
    EVENTSTORE_CONNECTION_STRING: text(),
    REDIS_URL: text(),
    REDIS_CLUSTER_URLS: clusterUrls,
    ARBOR_REDIS_PREFIX: text().default('arbor'),
    ARBOR_PROJECTOR: onOff(true),
    ARBOR_PARTITIONS: int(4, 1),
    ARBOR_LEASE_MS: int(5000, 300),
    ARBOR_WORKER_ID: text(),
    ARBOR_SQLITE_SYNCHRONOUS: z.preprocess(
      (v) => (typeof blank(v) === 'string' ? (v as string).toUpperCase() : undefined),
      z.enum(SYNC, { error: `must be one of ${SYNC.join(', ')}` }).default('FULL'),
    ),
    ARBOR_SQLITE_GROUP_COMMIT: onOff(true),
    ARBOR_SQLITE_CHECKPOINT_MS: int(500, 0),
    ARBOR_BRANCH_CACHE_MIB: int(24, 0),
    ARBOR_BODY_LIMIT_BYTES: int(32 * 1024 * 1024, 1024),
    ARBOR_MAX_IMAGE_BYTES: int(5 * 1024 * 1024, 1),
    ARBOR_READ_TIMEOUT_MS: int(2000, 0),
    ARBOR_STATE_CACHE_MESSAGES: int(200_000, 1),
    ARBOR_STATE_SNAPSHOT_EVERY: int(1000, 0),
    ARBOR_AUDIT_SECRET: text(),
    ARBOR_ENCRYPTION: onOff(true),
    ARBOR_MASTER_KEY: text(),
    ARBOR_KEY_STORE: z.preprocess(
      (v) => (typeof blank(v) === 'string' ? (v as string).trim().toLowerCase() : undefined),
      z.enum(['sqlite', 'esdb'], { error: 'must be sqlite or esdb' }).optional(),
    ),
    ARBOR_RETENTION_SWEEP_MS: int(60 * 60 * 1000, 0),
    ARBOR_METRICS_PORT: maybeInt(0),
    ARBOR_RATE_LIMIT_RPS: int(0, 0),
    ARBOR_RATE_LIMIT_BURST: maybeInt(1),
    ARBOR_STREAM_MAX_PER_TENANT: int(32, 1),
    ARBOR_STREAM_HEARTBEAT_MS: int(15_000, 10),
    ARBOR_HEAVY_THREADS: int(Math.max(1, availableParallelism() - 1), 0),
    ARBOR_HEAVY_PER_TENANT: int(2, 1),
    ARBOR_CONTEXT_CHARGE_BYTES: int(256 * 1024, 1024),
    ARBOR_JSON_MAX_DEPTH: int(64, 2),
    ARBOR_JSON_MAX_BYTES: int(1024 * 1024, 64),
    ARBOR_PAGE_MAX_BYTES: int(4 * 1024 * 1024, 1024),
    ARBOR_ANSWER_MAX_BYTES: int(32 * 1024 * 1024, 1024),
    ARBOR_MAX_HEADER_BYTES: int(16 * 1024, 1024),
    ARBOR_HEADERS_TIMEOUT_MS: int(10_000, 100),
    ARBOR_REQUEST_TIMEOUT_MS: int(30_000, 100),
    ARBOR_CONNECTION_TIMEOUT_MS: int(60_000, 100),
    ARBOR_KEEP_ALIVE_TIMEOUT_MS: int(5_000, 100),
    ARBOR_MAX_CONNECTIONS: int(1024, 1),
    ARBOR_MAX_CONNECTIONS_PER_IP: int(128, 1),
    ARBOR_MAX_REQUESTS_PER_SOCKET: int(10_000, 1),
    ARBOR_IDEMPOTENCY_TTL_HOURS: int(24, 1),
    // An unknown provider is an error: a typo must not silently turn the rung off.
    ARBOR_SUMMARY_PROVIDER: z.preprocess(
      (v) => (typeof v === 'string' ? blank(v.trim()) : v),
      z
        .enum(SUMMARY_PROVIDER_NAMES as readonly [SummaryProviderName, ...SummaryProviderName[]], {
          error: `must be one of ${SUMMARY_PROVIDER_NAMES.join(', ')}`,
        })
        .default('anthropic'),
    ),
    ARBOR_SUMMARY_BASE_URL: trimmed(),
    ARBOR_SUMMARY_API_KEY: trimmed(),
    ARBOR_SUMMARY_MODEL: trimmed(),
    ARBOR_SUMMARY_WINDOW_TOKENS: int(200_000, 2048),
    ARBOR_SUMMARY_MAX_TOKENS: int(4096, 256),
  })
  .superRefine((env, ctx) => {
    if (env.REDIS_URL !== undefined && env.REDIS_CLUSTER_URLS !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['REDIS_CLUSTER_URLS'],
        message:
          'and REDIS_URL are exclusive: set REDIS_URL for one Redis node or REDIS_CLUSTER_URLS for a Redis Cluster, not both',
      });
    }
    if (env.ARBOR_KEY_STORE === 'esdb' && env.EVENTSTORE_CONNECTION_STRING === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['ARBOR_KEY_STORE'],
        message: '=esdb keeps the keys in EventStoreDB: set EVENTSTORE_CONNECTION_STRING too',
      });
    }
  });

export const CONFIG_ENV_VARS: readonly string[] = Object.keys(ENV_SCHEMA.shape);

/** Never echoed in an error: start-up errors end up in logs. */
const SECRETS = new Set([
  'ARBOR_ADMIN_KEY',
  'ARBOR_AUDIT_SECRET',
  'ARBOR_MASTER_KEY',
  'ARBOR_SUMMARY_API_KEY',
]);

const explain = (error: z.ZodError, env: NodeJS.ProcessEnv): string =>
  error.issues
    .map((issue) => {
      const name = String(issue.path[0] ?? 'environment');
      const raw = env[name];
      const shown = issue.code !== 'custom' && raw !== undefined && !SECRETS.has(name);
      const got = shown ? `, got ${JSON.stringify(raw)}` : '';
      const sep = /^[=:]/.test(issue.message) ? '' : ' ';
      return `${name}${sep}${issue.message}${got}`;
    })
    .join('\n');

/** Pure: the environment in, a validated config out (or a ConfigError naming the variable). */
export const readConfig = (env: NodeJS.ProcessEnv, cwd = process.cwd()): ArborConfig => {
  const parsed = ENV_SCHEMA.safeParse(env);
  if (!parsed.success) throw new ConfigError(explain(parsed.error, env));
  const e = parsed.data;
  const redis: RedisTarget | null =
    e.REDIS_URL !== undefined
      ? { kind: 'node', url: e.REDIS_URL }
      : e.REDIS_CLUSTER_URLS !== undefined
        ? { kind: 'cluster', urls: e.REDIS_CLUSTER_URLS }
        : null;
  const optional = <K extends string, V>(key: K, v: V | undefined) =>
    (v === undefined ? {} : { [key]: v }) as Partial<Record<K, V>>;
  return {
    port: e.PORT,
    // Loopback unless told otherwise: the Docker image sets HOST=0.0.0.0.
    host: e.HOST,
    dataDir: path.resolve(cwd, e.ARBOR_DATA_DIR),
    adminKey: e.ARBOR_ADMIN_KEY ?? null,
    eventStoreConnectionString: e.EVENTSTORE_CONNECTION_STRING ?? null,
    redis,
    redisPrefix: e.ARBOR_REDIS_PREFIX,
    projector: e.ARBOR_PROJECTOR,
    partitions: e.ARBOR_PARTITIONS,
    leaseMs: e.ARBOR_LEASE_MS,
    workerId: e.ARBOR_WORKER_ID ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`,
    synchronous: e.ARBOR_SQLITE_SYNCHRONOUS,
    groupCommit: e.ARBOR_SQLITE_GROUP_COMMIT,
    checkpointIntervalMs: e.ARBOR_SQLITE_CHECKPOINT_MS,
    branchCacheMiB: e.ARBOR_BRANCH_CACHE_MIB,
    bodyLimitBytes: e.ARBOR_BODY_LIMIT_BYTES,
    maxImageBytes: e.ARBOR_MAX_IMAGE_BYTES,
    readYourWritesTimeoutMs: e.ARBOR_READ_TIMEOUT_MS,
    logLevel: e.LOG_LEVEL,
    stateCacheMessages: e.ARBOR_STATE_CACHE_MESSAGES,
    stateSnapshotEvery: e.ARBOR_STATE_SNAPSHOT_EVERY,
    summary: {
      provider: e.ARBOR_SUMMARY_PROVIDER,
      ...optional('baseUrl', e.ARBOR_SUMMARY_BASE_URL),
      ...optional('apiKey', e.ARBOR_SUMMARY_API_KEY),
      ...optional('model', e.ARBOR_SUMMARY_MODEL),
      contextWindowTokens: e.ARBOR_SUMMARY_WINDOW_TOKENS,
      maxSummaryTokens: e.ARBOR_SUMMARY_MAX_TOKENS,
    },
    limits: {
      jsonMaxDepth: e.ARBOR_JSON_MAX_DEPTH,
      jsonMaxBytes: e.ARBOR_JSON_MAX_BYTES,
      pageMaxBytes: e.ARBOR_PAGE_MAX_BYTES,
      answerMaxBytes: e.ARBOR_ANSWER_MAX_BYTES,
      maxHeaderBytes: e.ARBOR_MAX_HEADER_BYTES,
      headersTimeoutMs: e.ARBOR_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.ARBOR_REQUEST_TIMEOUT_MS,
      connectionTimeoutMs: e.ARBOR_CONNECTION_TIMEOUT_MS,
      keepAliveTimeoutMs: e.ARBOR_KEEP_ALIVE_TIMEOUT_MS,
      maxConnections: e.ARBOR_MAX_CONNECTIONS,
      maxConnectionsPerIp: e.ARBOR_MAX_CONNECTIONS_PER_IP,
      maxRequestsPerSocket: e.ARBOR_MAX_REQUESTS_PER_SOCKET,
      idempotencyTtlHours: e.ARBOR_IDEMPOTENCY_TTL_HOURS,
    },
    streams: {
      maxPerTenant: e.ARBOR_STREAM_MAX_PER_TENANT,
      heartbeatMs: e.ARBOR_STREAM_HEARTBEAT_MS,
    },
    heavy: {
      threads: e.ARBOR_HEAVY_THREADS,
      perTenant: e.ARBOR_HEAVY_PER_TENANT,
      contextChargeBytes: e.ARBOR_CONTEXT_CHARGE_BYTES,
    },
    rateLimits: {
      ratePerSecond: e.ARBOR_RATE_LIMIT_RPS,
      burst: e.ARBOR_RATE_LIMIT_BURST ?? Math.max(1, 2 * e.ARBOR_RATE_LIMIT_RPS),
    },
    metricsPort: e.ARBOR_METRICS_PORT ?? null,
    auditSecret: e.ARBOR_AUDIT_SECRET ?? null,
    encryption: e.ARBOR_ENCRYPTION,
    masterKey: e.ARBOR_MASTER_KEY ?? null,
    // The keys follow the log unless told otherwise.
    keyStore:
      e.ARBOR_KEY_STORE ?? (e.EVENTSTORE_CONNECTION_STRING !== undefined ? 'esdb' : 'sqlite'),
    retentionSweepMs: e.ARBOR_RETENTION_SWEEP_MS,
  };
};

export const ARBOR_CONFIG = Symbol('ARBOR_CONFIG');
