import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { dumpReadModels, readModelDataPath } from '@arbor/projections';
import { PROJECTIONS } from '@arbor/application';
import {
  assistant,
  exchange,
  type MessageIn,
  msg,
  text,
  toolResult,
  toolTurn,
  toolUse,
  user,
} from './support/api';
import { ADMIN_KEY } from './support/harness';
import { type ServerProcess, spawnServer } from './support/server-process';
import { httpCall } from './support/http';

/**
 * "Survives a restart" (docs/INVARIANTS.md), through a real one: the server runs as an OS process, is killed
 * with SIGKILL, and a new process is started on the same files. Harness.restart() rebuilds the
 * app inside the jest process, where module-level state survives; here nothing but the files
 * does. Every read answered before the kill must be answered the same, byte for byte, after it;
 * checkpoints, compaction decisions and recorded contexts must work from what was persisted.
 */

interface Raw {
  status: number;
  contentType: string | null;
  text: string;
}

interface Handed {
  conversation: string;
  contextId: string;
  body: unknown;
  receipt: { prefixHash: string; rungs: { rung: string; applied: boolean }[] };
}

const bigResult = (n: number) => 'line of tool output that nobody will reread\n'.repeat(n);
const prose = (i: number) =>
  `Paragraph ${i}: the review went through the event log, the projections and the ladder. `.repeat(
    30,
  );
const heavyTurn = (label: string): MessageIn[] => [
  user(`step ${label}`),
  msg('assistant', [text(`running ${label}`), toolUse(`call_${label}`, 'bash', { cmd: label })]),
  msg('user', [toolResult(`call_${label}`, bigResult(300))]),
  assistant(`step ${label} done`),
];
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** The requests whose answers must not depend on which process gives them. */
const SHAKE = {
  provider: 'anthropic',
  model: 'claude-sonnet-4-5',
  budgetTokens: 12_000,
  mode: 'shake',
};
const SNAPSHOT = { ...SHAKE, budgetTokens: 20_000, mode: 'snapshot' };

describe('state across a real process restart (kill -9, new process, same files)', () => {
  let dataDir: string;
  let server: ServerProcess | null = null;
  let key = '';
  let tenantId = '';
  const handed: Handed[] = [];
  /** The last shake and snapshot contexts on main before the kill, decided nothing new. */
  const steady: Record<'shake' | 'snapshot', Handed | null> = { shake: null, snapshot: null };
  let before: Map<string, Raw>;
  let dumpBefore: string;
  const ids = { main: 'main', forkTip: 'fork-tip', forkEarly: 'fork-early' };
  const cp = { on: { label: 'on', messageId: '' }, off: { label: 'off', messageId: '' } };
  const paths: Record<'on' | 'off', string[]> = { on: [], off: [] };

  const srv = () => server as ServerProcess;

  const raw = async (method: string, route: string, k: string, body?: unknown): Promise<Raw> => {
    const res = await httpCall(srv().url, method, route, {
      key: k,
      body,
      timeoutMs: 15_000,
      check: false,
    });
    return { status: res.status, contentType: res.headers.get('content-type'), text: res.text };
  };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test helper: JSON of any shape
  const ok = async (method: string, route: string, body: unknown, status: number): Promise<any> => {
    const r = await raw(method, route, key, body);
    if (r.status !== status) throw new Error(`${method} ${route}: ${r.status} ${r.text}`);
    return JSON.parse(r.text);
  };
  const conv = (id: string, rest = '') => `/v1/conversations/${id}${rest}`;
  const turn = async (id: string, parentId: string, messages: MessageIn[]) =>
    (await ok('POST', conv(id, '/turns'), { parentId, messages }, 201)) as {
      tip: string;
      messageIds: string[];
    };
  const context = async (id: string, request: Record<string, unknown>): Promise<Handed> => {
    const r = await ok('POST', conv(id, '/context'), request, 200);
    const h = { conversation: id, contextId: r.contextId, body: r.body, receipt: r.receipt };
    handed.push(h);
    return h;
  };
  const branchIds = async (id: string): Promise<string[]> =>
    (await ok('GET', conv(id, '/messages?limit=1000'), undefined, 200)).items.map(
      (m: { id: string }) => m.id,
    );

  /** Every page of a paged route, following `next` cursors (the cursors are part of the answer). */
  const pages = async (out: Map<string, Raw>, route: string, k = key) => {
    let url: string | null = route;
    for (let i = 0; url !== null; i++) {
      const r: Raw = await raw('GET', url, k);
      out.set(`${route} #${i}`, r);
      const next = r.status === 200 ? (JSON.parse(r.text).next as string | undefined) : undefined;
      url = next ? `${route}&cursor=${encodeURIComponent(next)}` : null;
    }
  };

  /** Everything a client can read about the tenant's conversations, as raw answers. */
  const capture = async (): Promise<Map<string, Raw>> => {
    const out = new Map<string, Raw>();
    const one = async (route: string, k = key) => out.set(route, await raw('GET', route, k));
    await pages(out, '/v1/conversations?limit=2');
    await one('/v1/settings/context');
    await one(`/v1/tenants/${tenantId}/keys`, ADMIN_KEY);
    for (const id of Object.values(ids)) {
      await one(conv(id));
      await one(conv(id, '/tree'));
      await one(conv(id, '/checkpoints'));
      await one(conv(id, '/retry'));
      await one(conv(id, '/export?format=jsonl'));
      await one(conv(id, '/export?format=markdown'));
      await one(conv(id, '/context/report?provider=anthropic&model=claude-sonnet-4-5'));
      await pages(out, conv(id, '/messages?limit=3'));
      await pages(out, conv(id, '/events?limit=7'));
      await pages(out, conv(id, '/contexts?limit=2'));
      const tree = JSON.parse(out.get(conv(id, '/tree'))?.text ?? '{}') as {
        nodes: { id: string }[];
      };
      for (const node of tree.nodes) await one(conv(id, `/messages/${node.id}`));
      const { revision } = JSON.parse(out.get(conv(id))?.text ?? '{}') as { revision: number };
      for (const n of new Set([0, Math.floor(revision / 2), revision])) {
        await pages(out, conv(id, `/replay?revision=${n}&limit=4`));
      }
    }
    for (const h of handed) await one(conv(h.conversation, `/contexts/${h.contextId}`));
    return out;
  };

  /** The live read models, dumped from the file the server uses, once it has caught up. */
  const dumpReadModelsFile = async (): Promise<string> => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const head = JSON.parse((await raw('GET', '/v1/admin/log', ADMIN_KEY)).text)
        .position as string;
      const status = await raw('GET', '/v1/admin/projections', ADMIN_KEY);
      const p = JSON.parse(status.text).position as string | null;
      if (p !== null && BigInt(p) >= BigInt(head)) break;
      if (Date.now() > deadline) throw new Error(`projections stuck at ${p}, head ${head}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const db = new Database(readModelDataPath(dataDir), { readonly: true, fileMustExist: true });
    try {
      return dumpReadModels(db, PROJECTIONS);
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-process-restart-'));
    server = await spawnServer(dataDir);
    const tenant = await raw('POST', '/v1/tenants', ADMIN_KEY, { name: 'restart' });
    ({ apiKey: key, id: tenantId } = JSON.parse(tenant.text) as { apiKey: string; id: string });

    // Main: a task, a tool loop with parallel calls, heavy tool turns, a prose middle.
    await ok(
      'POST',
      '/v1/conversations',
      { id: ids.main, title: 'main', metadata: { k: 'v' } },
      201,
    );
    const t1 = (
      await ok(
        'POST',
        conv(ids.main, '/turns'),
        { messages: [user('The task: keep the goal in mind.'), assistant('Understood.')] },
        201,
      )
    ).tip as string;
    const t2 = await turn(ids.main, t1, toolTurn('loop', 2));
    let tip = t2.tip;
    for (const label of ['a', 'b', 'c', 'd'])
      tip = (await turn(ids.main, tip, heavyTurn(label))).tip;
    for (let i = 0; i < 10; i++) {
      tip = (await turn(ids.main, tip, [user(`question ${i}`), assistant(prose(i))])).tip;
    }
    tip = (await turn(ids.main, tip, toolTurn('recent'))).tip;
    // A branch (an edited prompt after the first turn), then the tip back to the main line.
    const edited = await turn(ids.main, t1, exchange('edited'));
    await ok('PUT', conv(ids.main, '/tip'), { messageId: tip }, 200);
    // Checkpoints: one on the active path, one off it, one rewound to and left.
    cp.on.messageId = t2.tip;
    cp.off.messageId = edited.tip;
    for (const c of [cp.on, cp.off]) await ok('POST', conv(ids.main, '/checkpoints'), c, 201);
    await ok('POST', conv(ids.main, '/checkpoints'), { label: 'early', messageId: t1 }, 201);
    await ok('POST', conv(ids.main, '/checkpoints/early/rewind'), { digest: 'went back' }, 200);
    await ok('PUT', conv(ids.main, '/tip'), { messageId: tip }, 200);
    // Contexts that elide and snapshot: their decisions go into the log.
    await context(ids.main, SHAKE);
    await context(ids.main, SNAPSHOT);
    // Forks at the tip and at an earlier message, with a turn on each side.
    await ok('POST', conv(ids.main, '/forks'), { id: ids.forkTip, title: 'at tip' }, 201);
    const early = await ok(
      'POST',
      conv(ids.main, '/forks'),
      { id: ids.forkEarly, messageId: t2.tip },
      201,
    );
    const forkTip = (await ok('GET', conv(ids.forkTip), undefined, 200)).tip as string;
    await turn(ids.forkTip, forkTip, toolTurn('on fork'));
    await turn(ids.forkEarly, early.idMap[t2.tip] as string, exchange('on early fork'));
    tip = (await turn(ids.main, tip, exchange('after the forks'))).tip;
    await context(ids.forkTip, SHAKE);
    // The two requests again after the main line moved on, then once more: the last pair
    // decides nothing new, so after the restart the same requests must give the same bodies.
    await context(ids.main, SHAKE);
    await context(ids.main, SNAPSHOT);
    steady.shake = await context(ids.main, SHAKE);
    steady.snapshot = await context(ids.main, SNAPSHOT);
    // A pending failure on one conversation.
    await ok(
      'POST',
      conv(ids.forkEarly, '/failures'),
      { input: { messages: [user('go on')] }, error: { type: 'overloaded_error', status: 529 } },
      201,
    );
    paths.on = await branchIds(ids.main);
    paths.on = paths.on.slice(0, paths.on.indexOf(cp.on.messageId) + 1);
    paths.off = [...paths.on.slice(0, 2), ...edited.messageIds];

    before = await capture();
    dumpBefore = await dumpReadModelsFile();
    await srv().kill();
    server = await spawnServer(dataDir);
  }, 120_000);

  afterAll(async () => {
    await server?.kill();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('the script made what a restart must keep', async () => {
    const all = [...before.values()].map((r) => r.text).join('\n');
    for (const type of [
      'TurnCommitted',
      'TipMoved',
      'CheckpointSet',
      'CheckpointRewound',
      'ConversationForked',
      'ForkedFrom',
      'CompactionApplied',
      'ContextAssembled',
      'TurnFailed',
    ]) {
      expect({ type, present: all.includes(`"type":"${type}"`) }).toEqual({ type, present: true });
    }
    const rungs = (h: Handed | null) =>
      (h?.receipt.rungs ?? []).filter((x) => x.applied).map((x) => x.rung);
    expect(rungs(handed[0])).toContain('elide');
    expect(rungs(handed[1])).toContain('snapshot');
    const checkpoints = JSON.parse(before.get(conv(ids.main, '/checkpoints'))?.text ?? '{}');
    expect(checkpoints.items.map((c: { status: string }) => c.status).sort()).toEqual([
      'active',
      'active',
      'rewound',
    ]);
    const branch = await branchIds(ids.main);
    expect(branch).toContain(cp.on.messageId);
    expect(branch).not.toContain(cp.off.messageId);
    expect(JSON.parse(before.get(conv(ids.forkEarly, '/retry'))?.text ?? '{}').input).toBeDefined();
    expect(before.size).toBeGreaterThan(150);
    const failing = [...before].filter(([, r]) => r.status !== 200).map(([route]) => route);
    expect(failing.sort()).toEqual([conv(ids.forkTip, '/retry'), conv(ids.main, '/retry')]);
  });

  it('answers every read exactly as the killed process did', async () => {
    const after = await capture();
    const parsed = (m: Map<string, Raw>) =>
      Object.fromEntries(
        [...m].map(([route, r]) => {
          let body: unknown = r.text;
          try {
            body = JSON.parse(r.text);
          } catch {
            // exports in markdown and jsonl stay text
          }
          return [route, { status: r.status, contentType: r.contentType, body }];
        }),
      );
    expect(parsed(after)).toEqual(parsed(before));
    expect(Object.fromEntries(after)).toEqual(Object.fromEntries(before));
  });

  it('holds the same read models the killed process had written', async () => {
    expect(await dumpReadModelsFile()).toBe(dumpBefore);
  });

  it('reproduces every context handed out before the kill, byte for byte', async () => {
    expect(handed.length).toBe(7);
    for (const h of handed) {
      const r = await ok('GET', conv(h.conversation, `/contexts/${h.contextId}`), undefined, 200);
      expect({ contextId: h.contextId, match: r.match, mismatch: r.mismatch }).toEqual({
        contextId: h.contextId,
        match: true,
        mismatch: undefined,
      });
      expect(r.bodyHash).toBe(r.recordedHash);
      expect(r.bodyHash).toBe(sha256(JSON.stringify(h.body)));
      expect(JSON.stringify(r.body)).toBe(JSON.stringify(h.body));
    }
  });

  it('gives the same context for the same request: decisions from the log, pages re-rendered', async () => {
    const receipts = (await ok('GET', conv(ids.main, '/contexts?limit=100'), undefined, 200))
      .items as { contextId: string; decisionIds: string[]; newDecisionIds: string[] }[];
    const receiptOf = (h: Handed | null) => receipts.find((r) => r.contextId === h?.contextId);
    for (const [mode, request] of [
      ['shake', SHAKE],
      ['snapshot', SNAPSHOT],
    ] as const) {
      const was = steady[mode] as Handed;
      expect(receiptOf(was)?.newDecisionIds).toEqual([]);
      const now = await context(ids.main, request);
      expect({ mode, prefixHash: now.receipt.prefixHash }).toEqual({
        mode,
        prefixHash: was.receipt.prefixHash,
      });
      expect(sha256(JSON.stringify(now.body))).toBe(sha256(JSON.stringify(was.body)));
      expect(now.receipt).toEqual(was.receipt);
      const recorded = (await ok('GET', conv(ids.main, '/contexts?limit=100'), undefined, 200))
        .items as { contextId: string; decisionIds: string[]; newDecisionIds: string[] }[];
      const mine = recorded.find((r) => r.contextId === now.contextId);
      expect(mine?.newDecisionIds).toEqual([]);
      expect(mine?.decisionIds).toEqual(receiptOf(was)?.decisionIds);
    }
    expect(JSON.stringify(steady.snapshot?.body)).toMatch(/"media_type":"image\/png"/);
  });

  it('rewinds to a checkpoint off the active path and to one on it, landing exactly on each', async () => {
    for (const c of [cp.off, cp.on]) {
      const r = await ok('POST', conv(ids.main, `/checkpoints/${c.label}/rewind`), {}, 200);
      expect({ label: c.label, tip: r.tip }).toEqual({ label: c.label, tip: c.messageId });
      expect((await ok('GET', conv(ids.main), undefined, 200)).tip).toBe(c.messageId);
      expect(await branchIds(ids.main)).toEqual(paths[c.label as 'on' | 'off']);
    }
    const statuses = (await ok('GET', conv(ids.main, '/checkpoints'), undefined, 200)).items.map(
      (c: { label: string; status: string }) => [c.label, c.status],
    );
    expect(statuses.sort()).toEqual([
      ['early', 'rewound'],
      ['off', 'rewound'],
      ['on', 'rewound'],
    ]);
  });

  it('holds read models equal to a rebuild from the log, and answers the same after it', async () => {
    const live = await dumpReadModelsFile();
    const answers = await capture();
    const r = await raw('POST', '/v1/admin/projections/rebuild', ADMIN_KEY);
    expect(r.status).toBe(200);
    expect(await dumpReadModelsFile()).toBe(live);
    expect(Object.fromEntries(await capture())).toEqual(Object.fromEntries(answers));
  });
});
