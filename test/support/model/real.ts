/**
 * The real side of the model-based test: the app over HTTP (one tenant driven, one probing), the
 * last event list seen per conversation, and the checks run after every step against the model
 * (invariants 1–10 (docs/INVARIANTS.md) as far as HTTP can observe them).
 */
import { ReadModelsService } from '@arbor/application';
import { type AuditEvent, type Client, clientFor, conversationRoutes, problemShape } from '../api';
import { ADMIN_KEY, type Harness, type HttpResult } from '../harness';
import { settle } from '../workload';
import {
  checkpointView,
  childrenOf,
  decisionOf,
  type MConv,
  type Model,
  nodeIds,
  pathTo,
  sortedCheckpoints,
} from './model';

export interface Real {
  h: Harness;
  /** The tenant the commands drive. */
  a: Client;
  /** Another tenant, only ever probing A's ids (invariant 9). */
  b: Client;
  /** The event list of each conversation as last seen (invariant 1: later lists extend it). */
  events: Map<string, AuditEvent[]>;
  /** Ghost ids never created by anyone, for "answers exactly like a missing id". */
  ghost: number;
}

/** How often each outcome was reached (printed with ARBOR_MODEL_VERBOSE, to see what is covered). */
export const outcomes = new Map<string, number>();
export const note = (outcome: string): void => {
  outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
};

/**
 * What the ladder did, per context call answered (200) or refused as cannot_fit, by budget kind:
 * how often each rung applied (printed with ARBOR_MODEL_VERBOSE).
 */
export const ladder = new Map<string, Map<string, number>>();
export const noteLadder = (bucket: string, applied: readonly string[]): void => {
  const b = ladder.get(bucket) ?? new Map<string, number>();
  ladder.set(bucket, b);
  for (const k of ['calls', ...(applied.length === 0 ? ['no rung'] : applied)])
    b.set(k, (b.get(k) ?? 0) + 1);
};

/** The ladder numbers as a table: each rung's count and share of the calls, per budget kind. */
export const ladderTable = (): string => {
  const rows = ['elide', 'strip_images', 'snapshot', 'summary', 'drop', 'no rung', 'cannot_fit'];
  const all = new Map<string, number>();
  for (const b of ladder.values()) for (const [k, n] of b) all.set(k, (all.get(k) ?? 0) + n);
  const order = ['relative budget', 'relative→fixed', 'fixed budget', 'before a restart'];
  const buckets: [string, Map<string, number>][] = [
    ...[...ladder].sort(([a], [b]) => order.indexOf(a) - order.indexOf(b)),
    ['all', all],
  ];
  const cell = (b: Map<string, number>, k: string) => {
    const n = b.get(k) ?? 0;
    const calls = b.get('calls') ?? 0;
    return `${n} (${calls === 0 ? 0 : Math.round((100 * n) / calls)} %)`.padStart(14);
  };
  const head = ''.padEnd(14) + buckets.map(([k]) => k.padStart(18)).join('');
  const lines = [
    head,
    'calls'.padEnd(14) + buckets.map(([, b]) => String(b.get('calls') ?? 0).padStart(18)).join(''),
    ...rows.map((k) => k.padEnd(14) + buckets.map(([, b]) => cell(b, k).padStart(18)).join('')),
  ];
  return lines.join('\n');
};

/** What a step expects the log of one conversation to gain; conversations not named gain nothing. */
export type SuffixCheck = (suffix: AuditEvent[]) => void;

export const newReal = async (h: Harness): Promise<Real> => {
  const ta = await h.createTenant('model-a');
  const tb = await h.createTenant('model-b');
  return { h, a: clientFor(h, ta.apiKey), b: clientFor(h, tb.apiKey), events: new Map(), ghost: 0 };
};

/** The last revision seen for a conversation (-1 before any event). */
export const revisionOf = (r: Real, id: string): number => (r.events.get(id)?.length ?? 0) - 1;

export const expectStatus = (what: string, res: HttpResult, status: number, code?: string) => {
  note(what);
  expect({
    what,
    status: res.status,
    code: code === undefined ? undefined : res.body?.code,
  }).toEqual({ what, status, code });
};

export const types = (events: AuditEvent[]): string[] => events.map((e) => e.type);

/**
 * invariant 2 on an append: a MessageAppended only ever comes with the TurnCommitted of its turn
 * (same command, i.e. same causation id, right before it, ids in order) — or as the copied path
 * of a fork, in the append that starts the fork.
 */
export const checkTurnsWhole = (id: string, suffix: AuditEvent[]) => {
  const groups = new Map<string, AuditEvent[]>();
  let last: string | undefined;
  for (const e of suffix) {
    const cause = String(e.metadata.causationId);
    const g = groups.get(cause);
    if (g && last !== cause) throw new Error(`${id}: append ${cause} is not contiguous`);
    if (g) g.push(e);
    else groups.set(cause, [e]);
    last = cause;
  }
  for (const [cause, g] of groups) {
    const appended = g.filter((e) => e.type === 'MessageAppended');
    const committed = g.filter((e) => e.type === 'TurnCommitted');
    if (g.some((e) => e.type === 'ForkedFrom')) {
      expect({ cause, committed: committed.length }).toEqual({ cause, committed: 0 });
      continue;
    }
    if (appended.length === 0 && committed.length === 0) continue;
    expect({ cause, types: types(g) }).toEqual({
      cause,
      types: [...appended.map(() => 'MessageAppended'), 'TurnCommitted'],
    });
    const ids = appended.map((e) => (e.data.message as { id: string }).id);
    expect({ cause, ids }).toEqual({ cause, ids: committed[0].data.messageIds });
  }
};

/**
 * invariants 1–3 over every conversation: the new list is the old one plus a suffix, revisions
 * run 0..n, the suffix is what the step expects (nothing, for conversations it did not touch),
 * and turns are whole.
 */
export const checkLogs = async (
  m: Model,
  r: Real,
  expected: ReadonlyMap<string, SuffixCheck> = new Map(),
) => {
  const decisionOwner = new Map<string, string>();
  for (const id of m.order) {
    const events = await r.a.events(id);
    const before = r.events.get(id) ?? [];
    const prefix = events.slice(0, before.length);
    // JSON first (cheap on long logs); the deep comparison only to show a difference.
    if (JSON.stringify(prefix) !== JSON.stringify(before)) {
      expect({ id, unchangedPrefix: prefix }).toEqual({ id, unchangedPrefix: before });
    }
    expect({ id, revisions: events.map((e) => e.revision) }).toEqual({
      id,
      revisions: events.map((_, i) => i),
    });
    const suffix = events.slice(before.length);
    const check = expected.get(id);
    if (check) check(suffix);
    else expect({ id, appended: types(suffix) }).toEqual({ id, appended: [] });
    checkTurnsWhole(id, suffix);
    r.events.set(id, events);
    checkDecisions(m, id, events, decisionOwner);
  }
};

/**
 * invariant 4 and the model's record of compactions: every CompactionApplied names only messages
 * appended to its own stream before it (never the source's ids, in a fork), no decision id shows
 * up in two conversations (a fork carries none of its source's), and the log's decisions are the
 * ones the model recorded from the context calls, in order.
 */
const checkDecisions = (
  m: Model,
  id: string,
  events: readonly AuditEvent[],
  owner: Map<string, string>,
) => {
  const seen = new Set<string>();
  const logged: string[] = [];
  for (const e of events) {
    if (e.type === 'MessageAppended') seen.add((e.data.message as { id: string }).id);
    if (e.type !== 'CompactionApplied') continue;
    const d = decisionOf(e.data.decision as Record<string, unknown>);
    const foreign = d.messageIds.filter((x) => !seen.has(x));
    expect({ id, decision: d.id, foreign }).toEqual({ id, decision: d.id, foreign: [] });
    expect({ decision: d.id, also: owner.get(d.id) ?? id }).toEqual({ decision: d.id, also: id });
    owner.set(d.id, id);
    logged.push(d.id);
  }
  const c = m.convs.get(id);
  expect({ id, decisions: c?.decisions.map((d) => d.id) }).toEqual({ id, decisions: logged });
};

const messageView = (c: MConv, id: string) => {
  const n = c.nodes.get(id);
  if (!n) throw new Error(`model: unknown message ${id}`);
  return { id: n.id, parentId: n.parentId, role: n.role, content: n.content };
};

/** GET conversation, messages, tree, checkpoints and retry equal the model. */
export const checkConv = async (m: Model, r: Real, id: string) => {
  const c = m.convs.get(id);
  if (!c) throw new Error(`model: no conversation ${id}`);
  const conv = await r.a.conversation(id);
  expect({ id, conversation: conv }).toMatchObject({
    id,
    conversation: {
      id,
      tip: c.tip,
      revision: revisionOf(r, id),
      lineage: { forkedFrom: c.forkedFrom, forks: c.forks },
      counts: { messages: c.nodes.size, turns: c.turnCount },
      cutAt: c.cutAt,
    },
  });
  // The active branch, root → tip, with the content that was sent.
  const branch = (await r.a.branch(id, 7)).map((x) => ({
    id: x.id,
    parentId: x.parentId,
    role: x.role,
    content: x.content,
  }));
  expect({ id, branch }).toEqual({ id, branch: pathTo(c, c.tip).map((x) => messageView(c, x)) });
  // The whole tree: every node, its parent and children (in append order), branch points.
  const tree = await r.a.tree(id);
  const byId = new Map(tree.nodes.map((n) => [n.id, n]));
  const expectedNodes = nodeIds(c).map((x) => ({
    id: x,
    parentId: c.nodes.get(x)?.parentId,
    role: c.nodes.get(x)?.role,
    children: childrenOf(c, x),
  }));
  expect({ id, tip: tree.tip, nodes: nodeIds(c).map((x) => byId.get(x)) }).toEqual({
    id,
    tip: c.tip,
    nodes: expectedNodes,
  });
  expect({ id, count: tree.nodes.length }).toEqual({ id, count: c.nodes.size });
  expect({ id, branchPoints: [...tree.branchPoints].sort() }).toEqual({
    id,
    branchPoints: nodeIds(c)
      .filter((x) => childrenOf(c, x).length > 1)
      .sort(),
  });
  const cps = sortedCheckpoints(c).map(checkpointView);
  expect({ id, treeCheckpoints: tree.checkpoints }).toEqual({ id, treeCheckpoints: cps });
  const listed = await r.a.get(r.a.conv(id, '/checkpoints'));
  expectStatus(`GET checkpoints`, listed, 200);
  expect({ id, checkpoints: listed.body.items }).toEqual({ id, checkpoints: cps });
  // invariant 10: the pending failure, or nothing_to_retry (never conversation_not_found).
  const retry = await r.a.get(r.a.conv(id, '/retry'));
  if (c.pendingFailure) {
    expectStatus(`GET retry (pending, per step)`, retry, 200);
    expect({ id, retry: retry.body }).toMatchObject({ id, retry: c.pendingFailure });
  } else expectStatus(`GET retry (nothing, per step)`, retry, 404, 'nothing_to_retry');
};

const ghostIds = (r: Real) => {
  r.ghost += 1;
  return { conv: `ghost-conv-${r.ghost}`, message: `ghost-msg-${r.ghost}` };
};

/**
 * invariant 9, cheaply: tenant B naming A's conversation and one of its messages gets exactly what a
 * missing id gets (conversation and message reads).
 */
export const probeIsolation = async (r: Real, id: string, messageId: string | null) => {
  const g = ghostIds(r);
  const mid = messageId ?? 'no-message-yet';
  for (const [name, theirs, missing] of [
    ['conversation', r.b.conv(id), r.b.conv(g.conv)],
    ['message', r.b.conv(id, `/messages/${mid}`), r.b.conv(g.conv, `/messages/${g.message}`)],
  ] as const) {
    const r1 = await r.b.get(theirs);
    const r2 = await r.b.get(missing);
    expectStatus(`B reads A's ${name}`, r1, 404, 'conversation_not_found');
    expect({ name, ...problemShape(r1, id, mid) }).toEqual({
      name,
      ...problemShape(r2, g.conv, g.message),
    });
  }
};

/** invariant 9 in full: every route of the contract, reads and writes, for one conversation. */
export const sweepIsolation = async (m: Model, r: Real, id: string, messageId: string | null) => {
  const g = ghostIds(r);
  const mid = messageId ?? 'no-message-yet';
  const theirs = conversationRoutes(id, mid, 'a');
  const missing = conversationRoutes(g.conv, g.message, 'a');
  for (let i = 0; i < theirs.length; i++) {
    const send = (x: (typeof theirs)[number]) =>
      r.h.call(x.method, x.url, { key: r.b.key, body: x.body });
    const r1 = await send(theirs[i]);
    const r2 = await send(missing[i]);
    expectStatus(`B ${theirs[i].name} on A's conversation`, r1, 404, 'conversation_not_found');
    expect({ route: theirs[i].name, ...problemShape(r1, id, mid) }).toEqual({
      route: theirs[i].name,
      ...problemShape(r2, g.conv, g.message),
    });
  }
  await checkLogs(m, r); // nothing was written anywhere
};

/** invariant 8: the read models rebuilt from the log equal the live ones, byte for byte. */
export const checkRebuild = async (r: Real) => {
  await settle(r.h);
  const live = await r.h.app.get(ReadModelsService).dump();
  const res = await r.h.call('POST', '/v1/admin/projections/rebuild', { key: ADMIN_KEY });
  expectStatus('rebuild', res, 200);
  const rebuilt = await r.h.app.get(ReadModelsService).dump();
  if (rebuilt !== live) {
    // A readable diff of the first differing lines rather than two whole dumps.
    const a = live.split('\n');
    const b = rebuilt.split('\n');
    const i = a.findIndex((line, k) => line !== b[k]);
    expect({ line: i, rebuilt: b.slice(i, i + 5) }).toEqual({
      line: i,
      rebuilt: a.slice(i, i + 5),
    });
  }
};

/** Everything, for every conversation: after a restart and at the end of a run. */
export const fullCheck = async (m: Model, r: Real) => {
  await checkLogs(m, r);
  for (const id of m.order) await checkConv(m, r, id);
  await checkRebuild(r);
  for (const id of m.order) await checkConv(m, r, id);
  const first = m.convs.get(m.order[0]) as MConv;
  await sweepIsolation(m, r, first.id, first.tip);
};

/** After every step: the logs of all conversations, the model of those touched, isolation. */
export const afterStep = async (
  m: Model,
  r: Real,
  touched: readonly string[],
  expected: ReadonlyMap<string, SuffixCheck> = new Map(),
) => {
  await checkLogs(m, r, expected);
  // The touched conversations and their fork relatives: a write on one side of a fork must not
  // show on the other (invariant 4), in the read models as much as in the log.
  const relatives = new Set(touched);
  for (const id of touched) {
    const c = m.convs.get(id);
    if (c?.forkedFrom) relatives.add(c.forkedFrom.conversationId);
    for (const f of c?.forks ?? []) relatives.add(f.conversationId);
  }
  for (const id of relatives) await checkConv(m, r, id);
  const id = touched[0] ?? m.order[0];
  await probeIsolation(r, id, m.convs.get(id)?.tip ?? null);
};
