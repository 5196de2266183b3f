/**
 * What the scaled-shape suites share (test/scaled.e2e-spec.ts on one Redis node,
 * test/cluster.e2e-spec.ts on a Redis Cluster): the same calls against any shape, the
 * normalization that makes two runs comparable, and the live read models vs a rebuild.
 */
import {
  createEventStore,
  createKeyStore,
  PROJECTION_FILTER,
  PROJECTIONS,
  readConfig,
  withContentEncryption,
} from '@arbor/application';
import {
  createProjector,
  createRedisReadModel,
  generationKey,
  type RedisClient,
} from '@arbor/projections';
import { exchange, toolTurn } from './api';
import { ADMIN_KEY } from './harness';
import { type Answer, call } from './scaled';

/** Ids, keys, hashes and times differ between two runs; everything else must not. */
export const normalizer = () => {
  const seen = new Map<string, string>();
  const alias = (kind: string) => (v: string) => {
    let a = seen.get(v);
    if (a === undefined) {
      a = `<${kind}${seen.size}>`;
      seen.set(v, a);
    }
    return a;
  };
  return (text: string, secrets: string[]): string => {
    let t = text;
    for (const s of secrets) t = t.split(s).join(alias('secret')(s));
    return t
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>')
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, alias('uuid'))
      .replace(/[0-9a-f]{64}/g, '<hash>');
  };
};

/** The same calls against any shape: `write` for writes, `read` for reads. */
export const scenario = async (
  write: string,
  read: string,
  readAfterWrite: (base: string, route: string, key: string) => Promise<Answer>,
): Promise<{ answers: string[]; secrets: string[] }> => {
  const answers: string[] = [];
  const keep = (label: string, a: Answer) => answers.push(`${label} ${a.status} ${a.text}`);
  const tenant = await call(write, 'POST', '/v1/tenants', ADMIN_KEY, { name: 'scaled' });
  keep('tenant', { ...tenant, text: String(tenant.status) });
  const key = tenant.body.apiKey as string;
  const secrets = [key, tenant.body.id as string, tenant.body.keyId as string].filter(Boolean);
  const w = (method: string, route: string, body?: unknown) =>
    call(write, method, route, key, body);
  const r = (route: string) => readAfterWrite(read, route, key);
  keep(
    'create',
    await w('POST', '/v1/conversations', { id: 'conv-a', title: 'A', metadata: { k: 1 } }),
  );
  keep('get', await r('/v1/conversations/conv-a'));
  const t1 = await w('POST', '/v1/conversations/conv-a/turns', {
    turnId: 't1',
    messages: exchange('1'),
  });
  keep('turn1', t1);
  keep(
    'turn2',
    await w('POST', '/v1/conversations/conv-a/turns', { turnId: 't2', messages: toolTurn('2', 2) }),
  );
  keep('messages', await r('/v1/conversations/conv-a/messages'));
  keep('tree', await r('/v1/conversations/conv-a/tree'));
  keep('checkpoint', await w('POST', '/v1/conversations/conv-a/checkpoints', { label: 'cp1' }));
  keep(
    'turn3',
    await w('POST', '/v1/conversations/conv-a/turns', { turnId: 't3', messages: exchange('3') }),
  );
  keep('rewind', await w('POST', '/v1/conversations/conv-a/checkpoints/cp1/rewind', {}));
  keep('checkpoints', await r('/v1/conversations/conv-a/checkpoints'));
  keep('branch after rewind', await r('/v1/conversations/conv-a/messages'));
  const first = (t1.body.messageIds as string[])[1];
  keep('tip', await w('PUT', '/v1/conversations/conv-a/tip', { messageId: first }));
  keep(
    'turn4 (branch)',
    await w('POST', '/v1/conversations/conv-a/turns', { turnId: 't4', messages: exchange('4') }),
  );
  keep('tree after branch', await r('/v1/conversations/conv-a/tree'));
  keep('fork', await w('POST', '/v1/conversations/conv-a/forks', { id: 'conv-b', title: 'B' }));
  keep('fork messages', await r('/v1/conversations/conv-b/messages'));
  keep('source lineage', await r('/v1/conversations/conv-a'));
  keep(
    'failure',
    await w('POST', '/v1/conversations/conv-b/failures', {
      input: { messages: exchange('f') },
      error: { message: 'boom' },
    }),
  );
  keep('retry', await r('/v1/conversations/conv-b/retry'));
  keep('list', await r('/v1/conversations'));
  keep('events', await r('/v1/conversations/conv-a/events'));
  keep('export', await r('/v1/conversations/conv-a/export?format=jsonl'));
  keep('last 2', await r('/v1/conversations/conv-a/messages?last=2'));
  // The same turnId again, on the other replica: one turn, replayed.
  keep(
    'retry t1 elsewhere',
    await call(read, 'POST', '/v1/conversations/conv-a/turns', key, {
      turnId: 't1',
      messages: exchange('1'),
    }),
  );
  keep('unknown', await r('/v1/conversations/nope'));
  return { answers, secrets };
};

export const directRead = (base: string, route: string, key: string) =>
  call(base, 'GET', route, key);

/**
 * The live generation's dump vs a rebuild from the log (`dataDir`'s) into a generation of the
 * caller's own, under `prefix`, through `client` (one node or a cluster).
 */
export const liveAndRebuildOf = async (
  client: RedisClient,
  prefix: string,
  dataDir: string,
): Promise<{ live: string; rebuilt: string }> => {
  const generation = (await client.get(generationKey(prefix))) as string;
  // The log as the app reads it: through the content keys (the read models hold clear text).
  // The shape's own log: EventStoreDB when the processes were given one, else the SQLite file.
  const config = readConfig({
    ARBOR_DATA_DIR: dataDir,
    EVENTSTORE_CONNECTION_STRING: process.env.EVENTSTORE_CONNECTION_STRING ?? '',
    ARBOR_MASTER_KEY: process.env.ARBOR_MASTER_KEY ?? '',
  });
  const store = withContentEncryption(createEventStore(config), createKeyStore(config), config);
  const check = createRedisReadModel({ client, prefix, generation: `check${Date.now()}` });
  await check.sink.reset();
  const projector = createProjector({
    store,
    sink: check.sink,
    set: { projections: PROJECTIONS, filter: PROJECTION_FILTER },
  });
  await projector.start();
  await projector.waitFor((await store.headPosition()) as bigint, 60_000);
  await projector.stop();
  const rebuilt = await check.sink.dump();
  await check.sink.reset();
  await store.close();
  const live = await createRedisReadModel({ client, prefix, generation }).sink.dump();
  return { live, rebuilt };
};
