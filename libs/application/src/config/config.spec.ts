import path from 'node:path';
import { ConfigError, readConfig } from './config';

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
