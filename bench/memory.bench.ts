/**
 * docs/TARGETS.md: memory stays bounded as history grows: with 1,000,000 stored messages across 10,000
 * conversations the server stays under 300 MB resident while it opens random conversations, and
 * opening one is as fast as in a data dir with 100 conversations (both servers up, same run).
 *
 *   npm run bench:memory -- [--messages 1000000] [--opens 2000] [--no-build] [--keep]
 *
 * How the data is made: tenants through the real API; then, with the server stopped, every
 * conversation's events (decided by the domain, so they are valid) are written straight through
 * the event-store port, many conversations per group commit; then the projector builds the read
 * models in this process. Only the stored data matters to what is measured.
 * "Open" = GET /v1/conversations/{id} then GET /v1/conversations/{id}/messages (first page, 100).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  type ConversationEvent,
  type ConversationState,
  decide,
  foldEvents,
  initialState,
  type MessageInput,
} from '@arbor/domain';
import { conversationStream } from '@arbor/event-store';
import { openReadSide, openStore, toEventData } from './lib/arbor-session';
import { createJsonClient, createTenant, type Tenant } from './lib/http';
import {
  fmt,
  hasFlag,
  machineLine,
  mib,
  numberFlag,
  ratio,
  section,
  summarize,
  table,
  verdictLines,
} from './lib/report';
import { ADMIN_KEY, buildServer, type ServerHandle, startServer } from './lib/server';
import { text } from './lib/turns';

const RSS_LIMIT_KIB = 300 * 1024;
const OPEN_RATIO_LIMIT = 1.25;
const MESSAGES_PER_CONVERSATION = 100;
const MESSAGES_PER_TURN = 10;
const SMALL_CONVERSATIONS = 100;

const args = process.argv.slice(2);
const opts = {
  messages: numberFlag(args, 'messages', 1_000_000),
  opens: numberFlag(args, 'opens', 2000),
  noBuild: hasFlag(args, 'no-build'),
  keep: hasFlag(args, 'keep'),
};

const deps = { newId: () => randomUUID(), now: () => new Date().toISOString() };

/** A turn of 10 messages: a prompt, 4 tool calls each with its result, the answer. */
const turnMessages = (seed: number): MessageInput[] => {
  const tag = `${seed}_${Math.random().toString(36).slice(2, 8)}`;
  const loop: MessageInput[] = [];
  for (let k = 0; k < (MESSAGES_PER_TURN - 2) / 2; k++) {
    const id = `toolu_${tag}_${k}`;
    loop.push(
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id, name: 'bash', input: { command: text(60, seed + k) } }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: text(300, k) }] },
    );
  }
  return [
    { role: 'user', content: [{ type: 'text', text: text(200, seed) }] },
    ...loop,
    { role: 'assistant', content: [{ type: 'text', text: text(300, seed + 1) }] },
  ];
};

/** A whole conversation's events, decided turn by turn by the domain. */
const conversationEvents = (conversationId: string, seed: number): ConversationEvent[] => {
  let state: ConversationState = initialState();
  const events: ConversationEvent[] = [];
  const apply = (decision: ReturnType<typeof decide>) => {
    if (!decision.ok) throw new Error(decision.error.message);
    events.push(...decision.events);
    state = foldEvents(decision.events, state);
  };
  apply(decide({ type: 'start', conversationId, title: `conversation ${seed}` }, state, deps));
  for (let t = 0; t < MESSAGES_PER_CONVERSATION / MESSAGES_PER_TURN; t++) {
    const tip = state.tip;
    apply(
      decide(
        { type: 'commitTurn', parentId: tip, expectedTip: tip, messages: turnMessages(seed + t) },
        state,
        deps,
      ),
    );
  }
  return events;
};

interface Dataset {
  dir: string;
  tenants: Tenant[];
  /** Conversation ids with their tenant's key. */
  conversations: { id: string; key: string }[];
  generateMs: number;
  projectMs: number;
  events: number;
}

const dirMiB = (dir: string) =>
  fs.readdirSync(dir).reduce((s, f) => s + fs.statSync(path.join(dir, f)).size, 0) / 2 ** 20;

/** Tenants through the API, conversations straight into the log, read models by the projector. */
const makeDataset = async (main: string, conversations: number, tenants: number) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-bench-memory-'));
  const server = await startServer({ main, dataDir: dir });
  const http = createJsonClient(server.baseUrl);
  const made: Tenant[] = [];
  for (let i = 0; i < tenants; i++) made.push(await createTenant(http, ADMIN_KEY, `t${i}`));
  http.close();
  await server.stop();

  const store = openStore(dir, 'OFF');
  const t0 = Date.now();
  const ids: { id: string; key: string }[] = [];
  let events = 0;
  const chunk = 50;
  for (let c = 0; c < conversations; c += chunk) {
    const appends: Promise<unknown>[] = [];
    for (let k = c; k < Math.min(conversations, c + chunk); k++) {
      const tenant = made[k % made.length];
      const id = randomUUID();
      const evs = conversationEvents(id, k);
      events += evs.length;
      ids.push({ id, key: tenant.apiKey });
      appends.push(
        store.appendToStream(conversationStream(tenant.id, id), toEventData(evs, tenant.id), {
          expectedRevision: 'no_stream',
        }),
      );
    }
    await Promise.all(appends); // one group commit per chunk
    if (conversations >= 1000 && (c / chunk) % 20 === 0) {
      process.stdout.write(
        `\r  generated ${fmt(c + chunk, 0)} / ${fmt(conversations, 0)} conversations`,
      );
    }
  }
  const generateMs = Date.now() - t0;
  if (conversations >= 1000) process.stdout.write('\n');
  const t1 = Date.now();
  const read = await openReadSide(store, dir);
  await read.caughtUp();
  const projectMs = Date.now() - t1;
  await read.close();
  await store.close();
  return { dir, tenants: made, conversations: ids, generateMs, projectMs, events } as Dataset;
};

const open = async (http: ReturnType<typeof createJsonClient>, c: { id: string; key: string }) => {
  const a = await http.call('GET', `/v1/conversations/${c.id}`, { key: c.key });
  const b = await http.call('GET', `/v1/conversations/${c.id}/messages`, { key: c.key });
  const ok = a.status === 200 && b.status === 200;
  const items = (b.body as { items?: unknown[] }).items?.length ?? 0;
  return { ms: a.ms + b.ms, ok: ok && items === MESSAGES_PER_CONVERSATION };
};

const main = async () => {
  const conversations = Math.max(1, Math.round(opts.messages / MESSAGES_PER_CONVERSATION));
  console.log(`# bench:memory — bounded memory with growing history (${new Date().toISOString()})`);
  console.log(machineLine());
  const entry = buildServer({ skip: opts.noBuild });
  console.log(
    `making data: ${fmt(conversations, 0)} conversations × ${MESSAGES_PER_CONVERSATION} messages ` +
      `(turns of ${MESSAGES_PER_TURN}), and ${SMALL_CONVERSATIONS} conversations for the baseline`,
  );
  const big = await makeDataset(entry, conversations, 100);
  const small = await makeDataset(entry, SMALL_CONVERSATIONS, 10);
  const servers: ServerHandle[] = [];
  try {
    const t0 = Date.now();
    const bigServer = await startServer({ main: entry, dataDir: big.dir, startTimeoutMs: 600_000 });
    const bigStartMs = Date.now() - t0;
    servers.push(bigServer);
    const smallServer = await startServer({ main: entry, dataDir: small.dir });
    servers.push(smallServer);
    const atStart = bigServer.memory();
    const bigHttp = createJsonClient(bigServer.baseUrl, 1);
    const smallHttp = createJsonClient(smallServer.baseUrl, 1);
    const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];
    const samples = { big: [] as number[], small: [] as number[] };
    let failures = 0;
    let maxRss = atStart.rssKiB;
    const warmup = 50;
    // Interleaved: one open on each server in turn, random conversations.
    for (let i = 0; i < opts.opens + warmup; i++) {
      // Alternate which server goes first, so neither always follows the other.
      const first = i % 2 === 0;
      const s = first ? await open(smallHttp, pick(small.conversations)) : null;
      const b = await open(bigHttp, pick(big.conversations));
      const s2 = s ?? (await open(smallHttp, pick(small.conversations)));
      if (!b.ok || !s2.ok) failures++;
      if (i >= warmup) {
        samples.big.push(b.ms);
        samples.small.push(s2.ms);
      }
      if (i % 100 === 0) maxRss = Math.max(maxRss, bigServer.memory().rssKiB);
    }
    const end = bigServer.memory();
    maxRss = Math.max(maxRss, end.rssKiB);
    const smallMem = smallServer.memory();
    bigHttp.close();
    smallHttp.close();
    const sb = summarize(samples.big);
    const ss = summarize(samples.small);
    const bigMessages = conversations * MESSAGES_PER_CONVERSATION;

    console.log(section('Data'));
    console.log(
      table(
        [
          'data dir',
          'conversations',
          'messages',
          'events',
          'on disk',
          'written in',
          'projected in',
        ],
        [big, small].map((d) => [
          d === big ? 'large' : 'baseline',
          fmt(d.conversations.length, 0),
          fmt(d.conversations.length * MESSAGES_PER_CONVERSATION, 0),
          fmt(d.events, 0),
          `${fmt(dirMiB(d.dir), 0)} MiB`,
          `${fmt(d.generateMs / 1000, 1)} s`,
          `${fmt(d.projectMs / 1000, 1)} s (${fmt(d.events / (d.projectMs / 1000), 0)} events/s)`,
        ]),
      ),
    );
    console.log(`large server: up in ${fmt(bigStartMs / 1000, 1)} s on the existing data`);
    console.log(section(`Opening random conversations (${opts.opens} each, interleaved)`));
    console.log(
      table(
        [
          'measure',
          `${fmt(SMALL_CONVERSATIONS, 0)} conversations`,
          `${fmt(conversations, 0)} conversations`,
          'ratio',
        ],
        [
          ['open p50 (ms)', fmt(ss.p50), fmt(sb.p50), ratio(sb.p50, ss.p50)],
          ['open p99 (ms)', fmt(ss.p99), fmt(sb.p99), ratio(sb.p99, ss.p99)],
          ['open mean (ms)', fmt(ss.mean), fmt(sb.mean), ratio(sb.mean, ss.mean)],
          ['server VmRSS at the end', mib(smallMem.rssKiB), mib(end.rssKiB), ''],
          ['server VmHWM (peak)', mib(smallMem.peakKiB), mib(end.peakKiB), ''],
        ],
      ),
    );
    console.log(
      `large server memory: ${mib(atStart.rssKiB)} after start, ${mib(maxRss)} max sampled while opening, ` +
        `${mib(end.peakKiB)} peak (VmHWM, start-up included)`,
    );
    if (failures > 0) console.log(`failed or short opens: ${failures}`);
    console.log(section('Summary'));
    console.log(
      verdictLines('bench:memory', [
        {
          target: `resident memory < 300 MB with ${fmt(bigMessages, 0)} stored messages (VmHWM)`,
          measured: mib(end.peakKiB),
          pass: end.peakKiB < RSS_LIMIT_KIB,
        },
        {
          target: `opening a conversation as fast as with ${SMALL_CONVERSATIONS} (p50 ratio ≤ ${OPEN_RATIO_LIMIT})`,
          measured: `${fmt(sb.p50)} vs ${fmt(ss.p50)} ms (${ratio(sb.p50, ss.p50)})`,
          pass: sb.p50 / ss.p50 <= OPEN_RATIO_LIMIT,
        },
        {
          target: 'every open answers 200 with a full first page',
          measured: `${failures} failures`,
          pass: failures === 0,
        },
      ]),
    );
    if (bigMessages < 1_000_000) {
      console.log(
        `note: scaled down to ${fmt(bigMessages, 0)} messages (--messages); the target is about 1,000,000`,
      );
    }
  } finally {
    for (const s of servers) await s.stop();
    if (opts.keep) console.log(`kept: ${big.dir} ${small.dir}`);
    else for (const d of [big.dir, small.dir]) fs.rmSync(d, { recursive: true, force: true });
  }
};

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
