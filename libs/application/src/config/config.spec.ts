import fs from 'node:fs';
import path from 'node:path';
import { CONFIG_ENV_VARS, ConfigError, readConfig } from './config';

describe('readConfig', () => {
  it('defaults to the embedded shape', () => {
    const c = readConfig({}, '/srv');
    expect(c).toMatchObject({
      host: '127.0.0.1',
      port: 3000,
      dataDir: path.resolve('/srv/data'),
      adminKey: null,
      eventStoreConnectionString: null,
      redis: null,
      redisPrefix: 'arbor',
      synchronous: 'FULL',
      groupCommit: true,
    });
  });

  it('reads every variable', () => {
    const c = readConfig(
      {
        PORT: '8080',
        HOST: '0.0.0.0',
        ARBOR_DATA_DIR: '/var/arbor',
        ARBOR_ADMIN_KEY: 'a-long-enough-admin-key',
        EVENTSTORE_CONNECTION_STRING: 'esdb://localhost:2113?tls=false',
        REDIS_URL: 'redis://127.0.0.1:6379',
        ARBOR_SQLITE_SYNCHRONOUS: 'normal',
        ARBOR_SQLITE_GROUP_COMMIT: 'off',
      },
      '/srv',
    );
    expect(c.port).toBe(8080);
    expect(c.host).toBe('0.0.0.0');
    expect(c.dataDir).toBe('/var/arbor');
    expect(c.adminKey).toBe('a-long-enough-admin-key');
    expect(c.eventStoreConnectionString).toBe('esdb://localhost:2113?tls=false');
    expect(c.synchronous).toBe('NORMAL');
    expect(c.groupCommit).toBe(false);
    expect(c.redis).toEqual({ kind: 'node', url: 'redis://127.0.0.1:6379' });
  });

  it('reads a Redis Cluster from REDIS_CLUSTER_URLS (seed nodes, comma-separated)', () => {
    const c = readConfig({
      REDIS_CLUSTER_URLS: 'redis://10.0.0.1:7000, redis://10.0.0.2:7001,rediss://u:p@h3:7002',
    });
    expect(c.redis).toEqual({
      kind: 'cluster',
      urls: ['redis://10.0.0.1:7000', 'redis://10.0.0.2:7001', 'rediss://u:p@h3:7002'],
    });
  });

  it.each([
    [{ REDIS_URL: 'redis://a:1', REDIS_CLUSTER_URLS: 'redis://b:2' }, /exclusive/],
    [{ REDIS_CLUSTER_URLS: 'redis://a:1,,redis://b:2' }, /"" is empty/],
    [{ REDIS_CLUSTER_URLS: 'a:1' }, /redis:\/\/ or rediss:\/\//],
    [{ REDIS_CLUSTER_URLS: 'http://a:1' }, /redis:\/\/ or rediss:\/\//],
    [{ REDIS_CLUSTER_URLS: 'redis://a' }, /host and a port/],
    [{ REDIS_CLUSTER_URLS: 'redis://a:1/2' }, /database 0/],
    [{ REDIS_CLUSTER_URLS: 'redis://a:1,redis://a:1' }, /listed twice/],
  ])('refuses the Redis setting %j with an error naming it', (env, re) => {
    expect(() => readConfig(env)).toThrow(ConfigError);
    expect(() => readConfig(env)).toThrow(re);
  });

  it.each([
    [{ PORT: 'abc' }, /PORT/],
    [{ PORT: '-1' }, /PORT/],
    [{ ARBOR_SQLITE_SYNCHRONOUS: 'sometimes' }, /SYNCHRONOUS/],
    [{ ARBOR_ADMIN_KEY: 'short' }, /ARBOR_ADMIN_KEY/],
    [{ ARBOR_SQLITE_GROUP_COMMIT: 'sometimes' }, /ARBOR_SQLITE_GROUP_COMMIT/],
    [{ ARBOR_KEY_STORE: 'redis' }, /ARBOR_KEY_STORE must be sqlite or esdb/],
    [{ ARBOR_KEY_STORE: 'esdb' }, /ARBOR_KEY_STORE=esdb .*EVENTSTORE_CONNECTION_STRING/],
    [{ PORT: '1.5' }, /^PORT must be an integer ≥ 0, got "1.5"$/],
    [{ ARBOR_LEASE_MS: '299' }, /^ARBOR_LEASE_MS must be an integer ≥ 300, got "299"$/],
    [{ ARBOR_JSON_MAX_DEPTH: '1' }, /^ARBOR_JSON_MAX_DEPTH must be an integer ≥ 2, got "1"$/],
    [{ ARBOR_RATE_LIMIT_BURST: '0' }, /^ARBOR_RATE_LIMIT_BURST must be an integer ≥ 1/],
    [{ ARBOR_METRICS_PORT: 'nine' }, /^ARBOR_METRICS_PORT must be an integer ≥ 0, got "nine"$/],
    [{ ARBOR_ENCRYPTION: 'yes' }, /^ARBOR_ENCRYPTION must be on or off, got "yes"$/],
    [
      { ARBOR_SUMMARY_WINDOW_TOKENS: '100' },
      /^ARBOR_SUMMARY_WINDOW_TOKENS must be an integer ≥ 2048/,
    ],
    [
      { ARBOR_SUMMARY_PROVIDER: 'openai' },
      /^ARBOR_SUMMARY_PROVIDER must be one of anthropic, openai-chat, got "openai"$/,
    ],
  ])('refuses %j with an error naming the variable', (env, re) => {
    expect(() => readConfig(env)).toThrow(ConfigError);
    expect(() => readConfig(env)).toThrow(re);
  });
});

describe('key store choice (ARBOR_KEY_STORE)', () => {
  const esdb = { EVENTSTORE_CONNECTION_STRING: 'esdb://localhost:2113?tls=false' };
  it('follows the log by default: SQLite beside SQLite, EventStoreDB beside EventStoreDB', () => {
    expect(readConfig({}).keyStore).toBe('sqlite');
    expect(readConfig(esdb).keyStore).toBe('esdb');
  });
  it('may keep the keys in SQLite beside an EventStoreDB log (one machine)', () => {
    expect(readConfig({ ...esdb, ARBOR_KEY_STORE: 'SQLite' }).keyStore).toBe('sqlite');
    expect(readConfig({ ...esdb, ARBOR_KEY_STORE: 'esdb' }).keyStore).toBe('esdb');
  });
});

describe('summary rung configuration', () => {
  it('is unavailable without a key and reads ARBOR_SUMMARY_* when given', () => {
    expect(readConfig({}).summary.apiKey).toBeUndefined();
    const c = readConfig({
      ARBOR_SUMMARY_PROVIDER: 'openai-chat',
      ARBOR_SUMMARY_API_KEY: 'k',
      ARBOR_SUMMARY_MODEL: 'gpt-x',
      ARBOR_SUMMARY_WINDOW_TOKENS: '32000',
    });
    expect(c.summary).toMatchObject({
      provider: 'openai-chat',
      apiKey: 'k',
      model: 'gpt-x',
      contextWindowTokens: 32000,
    });
  });

  it('refuses an unknown summary provider', () => {
    expect(() => readConfig({ ARBOR_SUMMARY_PROVIDER: 'antropic' })).toThrow(ConfigError);
  });
});

describe('readConfig: values and their errors', () => {
  it('takes blank as unset and on/off in any of its spellings', () => {
    const c = readConfig({
      PORT: ' ',
      ARBOR_PROJECTOR: 'OFF',
      ARBOR_ENCRYPTION: 'False',
      REDIS_URL: '',
    });
    expect(c).toMatchObject({ port: 3000, projector: false, encryption: false, redis: null });
    expect(readConfig({ ARBOR_SQLITE_GROUP_COMMIT: '1' }).groupCommit).toBe(true);
  });

  it('derives the burst from the rate unless it is set, and the metrics port only when set', () => {
    expect(readConfig({}).rateLimits).toEqual({ ratePerSecond: 0, burst: 1 });
    expect(readConfig({ ARBOR_RATE_LIMIT_RPS: '5' }).rateLimits).toEqual({
      ratePerSecond: 5,
      burst: 10,
    });
    expect(
      readConfig({ ARBOR_RATE_LIMIT_RPS: '5', ARBOR_RATE_LIMIT_BURST: '3' }).rateLimits.burst,
    ).toBe(3);
    expect(readConfig({}).metricsPort).toBeNull();
    expect(readConfig({ ARBOR_METRICS_PORT: '9464' }).metricsPort).toBe(9464);
  });

  it('names every bad variable at once, one line each', () => {
    const run = () => readConfig({ PORT: 'x', ARBOR_PROJECTOR: 'maybe', ARBOR_PARTITIONS: '0' });
    expect(run).toThrow(ConfigError);
    expect(() => run()).toThrow(
      'PORT must be an integer ≥ 0, got "x"\nARBOR_PROJECTOR must be on or off, got "maybe"\nARBOR_PARTITIONS must be an integer ≥ 1, got "0"',
    );
  });

  it('never repeats a secret in its error', () => {
    const secret = 'too-short';
    expect(() => readConfig({ ARBOR_ADMIN_KEY: secret })).toThrow(
      /^ARBOR_ADMIN_KEY must be at least 16 characters$/,
    );
  });

  it('reads the summary connection trimmed, leaving blank values out', () => {
    expect(
      readConfig({
        ARBOR_SUMMARY_BASE_URL: ' http://127.0.0.1:8000/v1 ',
        ARBOR_SUMMARY_API_KEY: ' sk-x ',
        ARBOR_SUMMARY_MODEL: '  ',
      }).summary,
    ).toEqual({
      provider: 'anthropic',
      baseUrl: 'http://127.0.0.1:8000/v1',
      apiKey: 'sk-x',
      contextWindowTokens: 200_000,
      maxSummaryTokens: 4096,
    });
  });
});

describe('docs/configuration.md', () => {
  const doc = fs.readFileSync(path.resolve(__dirname, '../../../../docs/configuration.md'), 'utf8');
  // The service's own sections: every table row's variable(s), up to the OpenTelemetry section.
  const service = doc.slice(0, doc.indexOf('## Traces'));
  const documented = new Set(
    service
      .split('\n')
      .filter((l) => l.startsWith('| `'))
      .flatMap((l) => [...l.split('|')[1].matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1])),
  );
  // Read by the console's static server from process.env on each request, not at start-up.
  const readElsewhere = ['ARBOR_CONSOLE_DIR'];

  it('documents every variable of the schema', () => {
    expect(CONFIG_ENV_VARS.filter((v) => !documented.has(v))).toEqual([]);
  });

  it('documents no service variable that the schema does not read', () => {
    const extra = [...documented].filter(
      (v) => !CONFIG_ENV_VARS.includes(v) && !readElsewhere.includes(v),
    );
    expect(extra).toEqual([]);
  });
});
