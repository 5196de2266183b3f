/**
 * The erasure proof's tools, shared by the embedded and the scaled suites: the marker's forms,
 * the search of every file and every Redis key for them, a conversation holding the marker in
 * every kind of content, and every read of a conversation as text.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { createClient } from 'redis';
import { pngHeader } from '@arbor/domain/testing/images';
import { assistant, type Client, msg, text, toolResult, toolUse, user } from './api';
import { type Call, httpCall } from './http';

/** Every way the marker can sit in a file: raw, and base64 at each of the three alignments. */
export const needles = (marker: string): Buffer[] => {
  const raw = Buffer.from(marker, 'utf8');
  const out = [raw];
  for (let k = 0; k < 3; k++) {
    const b64 = Buffer.concat([Buffer.alloc(k), raw]).toString('base64');
    const core = b64.slice(Math.ceil((k * 4) / 3) + 1, b64.length - 4);
    out.push(Buffer.from(core, 'utf8'));
  }
  return out;
};

const filesUnder = (dir: string): string[] =>
  fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));

/** Files (relative names) holding any form of the marker. */
export const filesWith = (dir: string, marker: string): string[] => {
  const forms = needles(marker);
  return filesUnder(dir)
    .filter((f) => {
      const bytes = fs.readFileSync(f);
      return forms.some((n) => bytes.includes(n));
    })
    .map((f) => path.relative(dir, f));
};

/**
 * Checkpoints every SQLite database's WAL under `dir` into its file (PASSIVE: other processes
 * may hold it open; what a running reader pins stays in the WAL, and the search reads the WAL
 * too, so nothing is hidden by this).
 */
export const checkpointAll = (dir: string): void => {
  for (const f of filesUnder(dir).filter((f) => f.endsWith('.sqlite'))) {
    const db = new Database(f, { fileMustExist: true });
    try {
      db.pragma('busy_timeout = 5000');
      db.pragma('wal_checkpoint(PASSIVE)');
    } finally {
      db.close();
    }
  }
};

/** Every value of one Redis key as text (strings, hashes, lists, sets, sorted sets, streams). */
const valueOf = async (
  client: { type(k: string): Promise<string> } & Pick<
    ReturnType<typeof createClient>,
    'get' | 'hGetAll' | 'lRange' | 'sMembers' | 'zRange' | 'xRange'
  >,
  key: string,
): Promise<string> => {
  const type = await client.type(key);
  if (type === 'string') return String(await client.get(key));
  if (type === 'hash') return JSON.stringify(await client.hGetAll(key));
  if (type === 'list') return JSON.stringify(await client.lRange(key, 0, -1));
  if (type === 'set') return JSON.stringify(await client.sMembers(key));
  if (type === 'zset') return JSON.stringify(await client.zRange(key, 0, -1));
  if (type === 'stream') return JSON.stringify(await client.xRange(key, '-', '+'));
  if (type === 'none') return '';
  throw new Error(`redis key ${key}: a type the search does not read (${type})`);
};

/** Redis keys matching `pattern` whose name or value holds any form of the marker. */
export const redisKeysWith = async (
  url: string,
  pattern: string,
  marker: string,
): Promise<string[]> => {
  const client = createClient({ url });
  await client.connect();
  try {
    const forms = needles(marker).map((n) => n.toString('utf8'));
    const hits: string[] = [];
    const keys: string[] = [];
    for await (const batch of client.scanIterator({ MATCH: pattern, COUNT: 500 }))
      keys.push(...batch);
    for (const key of keys) {
      const textOf = key + (await valueOf(client, key));
      if (forms.some((f) => textOf.includes(f))) hits.push(key);
    }
    return hits;
  } finally {
    await client.quit();
  }
};

const prose = (marker: string, i: number) =>
  `Paragraph ${i} about ${marker}: the review went through the log, the projections and the ladder. `.repeat(
    30,
  );

/**
 * A conversation holding `marker` in every kind of content (title, metadata, text, thinking,
 * tool input, tool result, an image's bytes, a failed turn, a snapshot's source, a summary);
 * returns its id. Needs a summarizer that quotes the marker (the fake provider).
 */
export async function seedMarked(api: Client, marker: string): Promise<string> {
  const id = await api.start({ title: `title ${marker}`, metadata: { note: marker } });
  const image = Buffer.concat([pngHeader(2, 2), Buffer.from(`image bytes ${marker}`)]);
  let tip = (
    await api.turn(id, null, [
      user(`The goal mentions ${marker}.`),
      msg('assistant', [
        { type: 'thinking', thinking: `thinking about ${marker}`, signature: 'sig-1' },
        text('Running it.'),
        toolUse('toolu_1', 'bash', { cmd: `grep ${marker}` }),
      ]),
      msg('user', [
        toolResult('toolu_1', `result line with ${marker}`),
        {
          type: 'image',
          source: { type: 'base64', media_type: 'image/png', data: image.toString('base64') },
        },
      ]),
      assistant('Done.'),
    ])
  ).tip;
  for (let i = 0; i < 40; i++) {
    tip = (await api.turn(id, tip, [user(`question ${i}`), assistant(prose(marker, i))])).tip;
  }
  const failed = await api.post(api.conv(id, '/failures'), {
    input: { messages: [{ role: 'user', content: [text(`failed turn ${marker}`)] }] },
    error: { message: `overloaded ${marker}` },
  });
  expect(failed.status).toBe(201);
  // A snapshot (its pages rendered from the source text) and a summary (the summarizer's text,
  // recorded in the decision) of the middle.
  const snap = await api.post(api.conv(id, '/context'), {
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    budgetTokens: 200_000,
    mode: 'snapshot',
    system: `system prompt ${marker}`,
  });
  expect(snap.status).toBe(200);
  expect(
    snap.body.receipt.rungs.some(
      (r: { rung: string; applied: boolean }) => r.rung === 'snapshot' && r.applied,
    ),
  ).toBe(true);
  const compact = await api.post(api.conv(id, '/context'), {
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    budgetTokens: 200_000,
    mode: 'compact',
  });
  expect(compact.status).toBe(200);
  // A context call's `append` (recorded with the context, for its reproduction) and a draft of
  // the turn in progress: content too.
  const appended = await api.post(api.conv(id, '/context'), {
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    budgetTokens: 200_000,
    append: [user(`appended question ${marker}`)],
  });
  expect(appended.status).toBe(200);
  const draft = await api.put(api.conv(id, '/draft'), {
    parentId: tip,
    messages: [user(`draft question ${marker}`)],
  });
  expect(draft.status).toBe(200);
  const events = await api.events(id);
  const summary = events.find(
    (e) =>
      e.type === 'CompactionApplied' && (e.data.decision as { rung: string }).rung === 'summary',
  );
  expect(JSON.stringify(summary?.data)).toContain(marker);
  return id;
}

/** Every read of a conversation a client can make, as text, to compare before and after. */
export const snapshotOf = async (api: Client, id: string): Promise<string[]> => {
  const urls = ['', '/messages', '/tree', '/events', '/checkpoints', '/replay?revision=3'];
  const out: string[] = [];
  for (const u of urls) {
    const r = await api.get(api.conv(id, u));
    out.push(`${u} ${r.status} ${r.text}`);
  }
  return out;
};

/** The summary rung's settings pointing at a fake Anthropic summarizer (8k window, short answers). */
export const fakeSummarizerEnv = (url: string, apiKey: string): Record<string, string> => ({
  ARBOR_SUMMARY_PROVIDER: 'anthropic',
  ARBOR_SUMMARY_BASE_URL: url,
  ARBOR_SUMMARY_API_KEY: apiKey,
  ARBOR_SUMMARY_MODEL: 'claude-haiku-4-5',
  ARBOR_SUMMARY_WINDOW_TOKENS: '8192',
  ARBOR_SUMMARY_MAX_TOKENS: '256',
});

/** `Harness.call` against any base URL (a replica process), for `clientFor`; unchecked. */
export const callerFor =
  (baseUrl: string): Call =>
  (method, url, options = {}) =>
    httpCall(baseUrl, method, url, { check: false, ...options });
