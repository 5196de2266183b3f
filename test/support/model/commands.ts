/**
 * The commands of the model-based test: each picks its targets from the model (indices are
 * generated before the model exists, so they are taken modulo), predicts the answer and the
 * events from the model alone, runs the real call, checks both, updates the model, then runs the
 * per-step invariant checks (real.ts).
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { checkBody, PROVIDER_NAMES, type ProviderName } from '@arbor/context';
import { type AuditEvent } from '../api';
import {
  addConv,
  applyTurn,
  boundaries,
  convAt,
  fresh,
  forkConv,
  decisionOf,
  liveWindow,
  type MBlock,
  windowWeight,
  forkCompactions,
  type MConv,
  type Model,
  midTurn,
  nodeIds,
  pathTo,
  pick,
  resumeCut,
  sortedCheckpoints,
  turnMessages,
  type TurnShape,
  newConv,
} from './model';
import {
  afterStep,
  checkLogs,
  expectStatus,
  fullCheck,
  note,
  noteLadder,
  type Real,
  revisionOf,
  type SuffixCheck,
  types,
} from './real';

type Cmd = fc.AsyncCommand<Model, Real>;

const only = (id: string, check: SuffixCheck) => new Map([[id, check]]);

/** Every known message id of the tenant, in the model (fresh ids must not be among them). */
const allIds = (m: Model): Set<string> => {
  const out = new Set<string>();
  for (const c of m.convs.values()) for (const id of c.nodes.keys()) out.add(id);
  return out;
};

const nonEmpty = (m: Model): MConv[] =>
  m.order.map((id) => m.convs.get(id) as MConv).filter((c) => c.nodes.size > 0);

/** Conversation `i`: among those with messages when `any` is false and there are some. */
const convFor = (m: Model, i: number, any: boolean): MConv => {
  const full = nonEmpty(m);
  return any || full.length === 0 ? convAt(m, i) : pick(full, i);
};

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

// ---- start ---------------------------------------------------------------------------------

export class StartConversation implements Cmd {
  check = () => true;
  async run(m: Model, r: Real) {
    const res = await r.a.post('/v1/conversations', {});
    expectStatus('start', res, 201);
    const id = res.body.id as string;
    expect(m.convs.has(id)).toBe(false);
    expect(res.body).toMatchObject({ id, tip: null, revision: 0 });
    addConv(m, newConv(id));
    await afterStep(
      m,
      r,
      [id],
      only(id, (s) => {
        expect(types(s)).toEqual(['ConversationStarted']);
        expect(s[0].data).toMatchObject({ conversationId: id, forkedFrom: null });
      }),
    );
  }
  toString = () => 'start()';
}

// ---- commit a turn -------------------------------------------------------------------------

export type ParentMode = 'tip' | 'earlier' | 'mid';

export class CommitTurn implements Cmd {
  constructor(
    readonly conv: number,
    readonly parent: ParentMode,
    readonly parentPick: number,
    readonly shape: TurnShape,
    readonly withTurnId: boolean,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const c = convAt(m, this.conv);
    const ends = boundaries(c);
    const tipIsEnd = c.tip !== null && ends.includes(c.tip);
    let parentId: string | null = null;
    let expectRefusal = false;
    if (c.nodes.size > 0) {
      if (this.parent === 'mid' && midTurn(c).length > 0) {
        parentId = pick(midTurn(c), this.parentPick);
        expectRefusal = true;
      } else if (this.parent === 'tip' && tipIsEnd) parentId = c.tip;
      else parentId = pick(ends, this.parentPick);
    }
    const messages = turnMessages(m, this.shape);
    const turnId = this.withTurnId ? fresh(m, 'turn-') : undefined;
    const res = await r.a.post(r.a.conv(c.id, '/turns'), {
      ...(turnId ? { turnId } : {}),
      parentId,
      messages,
    });
    if (expectRefusal) {
      expectStatus('turn on a mid-turn message', res, 422, 'not_a_turn_boundary');
      await afterStep(m, r, [c.id]);
      return;
    }
    expectStatus('turn', res, 201);
    const ids = res.body.messageIds as string[];
    const known = allIds(m);
    expect(ids).toHaveLength(messages.length);
    expect(ids.filter((id) => known.has(id))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    const revision = revisionOf(r, c.id) + messages.length + 1;
    expect(res.body).toEqual({
      turnId: turnId ?? expect.any(String),
      messageIds: ids,
      tip: ids[ids.length - 1],
      revision,
      replayed: false,
    });
    const tipBefore = c.tip;
    if (parentId !== null && parentId !== c.tip) note('commit on an earlier turn end (new branch)');
    if (this.shape.rounds > 0) note('commit with a tool loop');
    applyTurn(c, {
      turnId: res.body.turnId,
      parentId,
      messages,
      messageIds: ids,
      tip: res.body.tip,
    });
    await afterStep(
      m,
      r,
      [c.id],
      only(c.id, (s) => {
        expect(types(s)).toEqual([...messages.map(() => 'MessageAppended'), 'TurnCommitted']);
        s.slice(0, -1).forEach((e, i) => {
          expect(e.data.message).toMatchObject({
            id: ids[i],
            parentId: i === 0 ? parentId : ids[i - 1],
            ...messages[i],
          });
        });
        expect(s[s.length - 1].data).toMatchObject({
          turnId: res.body.turnId,
          parentId,
          messageIds: ids,
          tipBefore,
          tip: res.body.tip,
        });
      }),
    );
  }
  toString = () =>
    `commit(conv ${this.conv}, ${this.parent} ${this.parentPick}, ${this.shape.rounds}×${this.shape.calls}${this.shape.long ? ' long' : ''}${this.shape.images ? ` ${this.shape.images} img` : ''}${this.withTurnId ? ', turnId' : ''})`;
}

/** The same turnId again: the same content is a replay (nothing written), other content a 409. */
export class RetryTurn implements Cmd {
  constructor(
    readonly conv: number,
    readonly turn: number,
    readonly conflict: boolean,
  ) {}
  check = (m: Readonly<Model>) => [...m.convs.values()].some((c) => c.turns.length > 0);
  async run(m: Model, r: Real) {
    const c = pick(
      [...m.convs.values()].filter((x) => x.turns.length > 0),
      this.conv,
    );
    const t = pick(c.turns, this.turn);
    const messages = this.conflict
      ? turnMessages(m, { rounds: 0, calls: 0, long: false, images: 0 })
      : t.messages;
    const res = await r.a.post(r.a.conv(c.id, '/turns'), {
      turnId: t.turnId,
      parentId: t.parentId,
      messages,
    });
    if (this.conflict)
      expectStatus('turnId reused for other content', res, 409, 'turn_id_conflict');
    else {
      expectStatus('turn retried', res, 200);
      expect(res.body).toMatchObject({
        turnId: t.turnId,
        messageIds: t.messageIds,
        tip: t.tip,
        replayed: true,
      });
    }
    await afterStep(m, r, [c.id]);
  }
  toString = () =>
    `retryTurn(conv ${this.conv}, turn ${this.turn}${this.conflict ? ', conflict' : ''})`;
}

// ---- tip -----------------------------------------------------------------------------------

export class MoveTip implements Cmd {
  constructor(
    readonly conv: number,
    readonly node: number,
  ) {}
  check = (m: Readonly<Model>) => nonEmpty(m as Model).length > 0;
  async run(m: Model, r: Real) {
    const c = pick(nonEmpty(m), this.conv);
    const to = pick(nodeIds(c), this.node);
    const from = c.tip;
    const res = await r.a.put(r.a.conv(c.id, '/tip'), { messageId: to });
    expectStatus('move tip', res, 200);
    if (to === from) {
      // A move to where the tip is changes nothing: it appends nothing (no TipMoved from = to).
      note('tip moved onto itself');
      expect(res.body).toEqual({ tip: to, revision: revisionOf(r, c.id) });
      await afterStep(
        m,
        r,
        [c.id],
        only(c.id, (s) => expect(s).toEqual([])),
      );
      return;
    }
    expect(res.body).toEqual({ tip: to, revision: revisionOf(r, c.id) + 1 });
    c.tip = to;
    if (!c.nodes.get(to)?.boundary) note('tip moved mid-turn');
    // invariant 3: exactly one TipMoved, and nothing else.
    await afterStep(
      m,
      r,
      [c.id],
      only(c.id, (s) => {
        expect(s.map((e) => [e.type, e.data])).toEqual([
          ['TipMoved', { from, to, reason: 'branch' }],
        ]);
      }),
    );
  }
  toString = () => `moveTip(conv ${this.conv}, node ${this.node})`;
}

// ---- fork ----------------------------------------------------------------------------------

export class Fork implements Cmd {
  constructor(
    readonly conv: number,
    readonly atTip: boolean,
    readonly node: number,
  ) {}
  check = (m: Readonly<Model>) => nonEmpty(m as Model).length > 0;
  async run(m: Model, r: Real) {
    const src = pick(nonEmpty(m), this.conv);
    const end = this.atTip ? (src.tip as string) : pick(boundaries(src), this.node);
    const res = await r.a.post(r.a.conv(src.id, '/forks'), this.atTip ? {} : { messageId: end });
    if (!boundaries(src).includes(end)) {
      expectStatus('fork at a mid-turn tip', res, 422, 'not_a_turn_boundary');
      await afterStep(m, r, [src.id]);
      return;
    }
    expectStatus('fork', res, 201);
    const forkId = res.body.id as string;
    const idMap = res.body.idMap as Record<string, string>;
    // invariant 4: a new conversation, fresh ids, the map covers exactly the copied path.
    expect(m.convs.has(forkId)).toBe(false);
    const path = pathTo(src, end);
    expect(Object.keys(idMap).sort()).toEqual([...path].sort());
    const copies = path.map((id) => idMap[id]);
    const known = allIds(m);
    expect(copies.filter((id) => known.has(id))).toEqual([]);
    expect(new Set(copies).size).toBe(copies.length);
    const f = forkConv(src, forkId, end, idMap);
    const { dropped, carried } = forkCompactions(src, path, idMap);
    if (dropped.length > 0) note('fork dropping compactions');
    if (carried.length > 0) note('fork carrying compactions');
    expect(res.body.revision).toBe(3 + path.length + f.checkpoints.size + carried.length - 1);
    addConv(m, f);
    if (src.forkedFrom) note('fork of a fork');
    if (f.checkpoints.size > 0) note('fork with checkpoints remapped');
    src.forks.push({ conversationId: forkId, messageId: end });
    const expected = new Map<string, SuffixCheck>([
      [
        src.id,
        (s: AuditEvent[]) =>
          expect(s.map((e) => [e.type, e.data])).toEqual([
            ['ConversationForked', { forkConversationId: forkId, fromMessageId: end, idMap }],
          ]),
      ],
      [
        forkId,
        (s: AuditEvent[]) => {
          expect(types(s)).toEqual([
            'ConversationStarted',
            'ForkedFrom',
            ...path.map(() => 'MessageAppended'),
            ...[...f.checkpoints.keys()].map(() => 'CheckpointSet'),
            ...carried.map(() => 'CompactionApplied'),
            'TipMoved',
          ]);
          expect(s[0].data).toMatchObject({
            conversationId: forkId,
            forkedFrom: { conversationId: src.id, messageId: end },
          });
          // invariant 4: the source's decisions on the copied path are carried over remapped
          // (new ids, fork message ids) or dropped explicitly.
          expect(s[1].data).toEqual({
            sourceConversationId: src.id,
            sourceMessageId: end,
            idMap,
            droppedCompactions: dropped,
            // The prompt-cache lineage: the first source of a chain of forks.
            lineage: lineageOf(m, src),
            carriedCompactions: carried.map((c) => ({
              sourceId: c.sourceId,
              id: expect.any(String),
              rung: c.rung,
            })),
          });
          const applied = s
            .filter((e) => e.type === 'CompactionApplied')
            .map((e) => decisionOf(e.data.decision as Record<string, unknown>));
          expect(applied.map((d) => ({ rung: d.rung, messageIds: d.messageIds }))).toEqual(
            carried.map((c) => ({ rung: c.rung, messageIds: c.messageIds })),
          );
          f.decisions = applied;
          path.forEach((id, i) => {
            const n = f.nodes.get(idMap[id]);
            expect(s[2 + i].data.message).toMatchObject({
              id: n?.id,
              parentId: n?.parentId,
              role: n?.role,
              content: n?.content,
            });
          });
          expect(
            s.slice(2 + path.length, 2 + path.length + f.checkpoints.size).map((e) => e.data),
          ).toEqual(
            sortedCheckpoints(f).map((cp) => ({ label: cp.label, messageId: cp.messageId })),
          );
          expect(s[s.length - 1].data).toEqual({ from: null, to: idMap[end], reason: 'fork' });
        },
      ],
    ]);
    await afterStep(m, r, [src.id, forkId], expected);
  }
  toString = () => `fork(conv ${this.conv}, ${this.atTip ? 'tip' : `node ${this.node}`})`;
}

/** The first source of a chain of forks (the conversation itself when it is no fork). */
const lineageOf = (m: Model, c: MConv): string => {
  let at = c;
  for (let hops = 0; at.forkedFrom !== null && hops < 1000; hops++) {
    const up = m.convs.get(at.forkedFrom.conversationId);
    if (up === undefined) return at.forkedFrom.conversationId;
    at = up;
  }
  return at.id;
};

// ---- checkpoints ---------------------------------------------------------------------------

export const LABELS = ['a', 'b', 'c.1', 'd:x'] as const;

export type CheckpointAt = 'tip' | 'turn end' | 'any message';

export class SetCheckpoint implements Cmd {
  constructor(
    readonly conv: number,
    readonly anyConv: boolean,
    readonly label: number,
    readonly at: CheckpointAt,
    readonly node: number,
    readonly replace: boolean,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const c = convFor(m, this.conv, this.anyConv);
    const label = pick(LABELS, this.label);
    const atTip = this.at === 'tip' || c.nodes.size === 0;
    const target = atTip
      ? c.tip
      : pick(this.at === 'turn end' ? boundaries(c) : nodeIds(c), this.node);
    const res = await r.a.post(r.a.conv(c.id, '/checkpoints'), {
      label,
      ...(atTip ? {} : { messageId: target ?? 'none' }),
      ...(this.replace ? { replace: true } : {}),
    });
    const existing = c.checkpoints.get(label);
    const live = existing !== undefined && existing.status !== 'dropped';
    if (target === null) expectStatus('checkpoint, no message', res, 404, 'message_not_found');
    else if (!c.nodes.get(target)?.boundary)
      expectStatus('checkpoint mid-turn', res, 422, 'not_a_turn_boundary');
    else if (live && existing.messageId !== target && !this.replace)
      expectStatus('checkpoint label taken', res, 409, 'checkpoint_exists');
    else {
      expectStatus('checkpoint', res, 201);
      const same = live && existing.messageId === target;
      expect(res.body).toEqual({
        label,
        messageId: target,
        status: 'active',
        revision: revisionOf(r, c.id) + (same ? 0 : 1),
      });
      if (!same) {
        c.checkpoints.set(label, { label, messageId: target, status: 'active' });
        await afterStep(
          m,
          r,
          [c.id],
          only(c.id, (s) =>
            expect(s.map((e) => [e.type, e.data])).toEqual([
              ['CheckpointSet', { label, messageId: target }],
            ]),
          ),
        );
        return;
      }
    }
    await afterStep(m, r, [c.id]);
  }
  toString = () =>
    `checkpoint(conv ${this.conv}${this.anyConv ? ' (any)' : ''}, ${pick(LABELS, this.label)}, ${this.at} ${this.node}${this.replace ? ', replace' : ''})`;
}

export class Rewind implements Cmd {
  constructor(
    readonly conv: number,
    /** A label the conversation has (when some conversation has one), else any label. */
    readonly known: boolean,
    readonly label: number,
    readonly withDigest: boolean,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const labelled = [...m.convs.values()].filter((x) => x.checkpoints.size > 0);
    const c = this.known && labelled.length > 0 ? pick(labelled, this.conv) : convAt(m, this.conv);
    const label =
      this.known && c.checkpoints.size > 0
        ? pick([...c.checkpoints.keys()], this.label)
        : pick(LABELS, this.label);
    const digest = this.withDigest ? `digest ${++m.counter}` : null;
    const res = await r.a.post(
      r.a.conv(c.id, `/checkpoints/${label}/rewind`),
      digest === null ? {} : { digest },
    );
    const cp = c.checkpoints.get(label);
    if (cp === undefined) {
      expectStatus('rewind unknown label', res, 404, 'checkpoint_not_found');
      await afterStep(m, r, [c.id]);
      return;
    }
    if (cp.status === 'dropped') {
      // invariant 5: a trimmed target fails clearly and moves nothing.
      expectStatus('rewind to a dropped label', res, 409, 'checkpoint_dropped');
      expect(res.body).toMatchObject({ label, messageId: cp.messageId, reason: cp.reason });
      await afterStep(m, r, [c.id]);
      return;
    }
    expectStatus('rewind', res, 200);
    if (cp.status === 'rewound') note('rewind to a rewound label');
    const from = c.tip;
    // A TipMoved only when the tip moves; a CheckpointRewound unless nothing changes at all (on
    // the target already, the label already rewound, no digest to keep): a no-op appends nothing.
    const moves = from !== cp.messageId;
    const rewinds = moves || digest !== null || cp.status !== 'rewound';
    const expected: [string, unknown][] = [
      ...(rewinds
        ? [
            ['CheckpointRewound', { label, messageId: cp.messageId, from, digest }] as [
              string,
              unknown,
            ],
          ]
        : []),
      ...(moves
        ? [['TipMoved', { from, to: cp.messageId, reason: 'rewind' }] as [string, unknown]]
        : []),
    ];
    if (!moves) note(rewinds ? 'rewind on its target' : 'rewind that changes nothing');
    // invariant 5: lands exactly on the target.
    expect(res.body).toEqual({
      tip: cp.messageId,
      revision: revisionOf(r, c.id) + expected.length,
    });
    c.tip = cp.messageId;
    if (rewinds)
      c.checkpoints.set(label, {
        label,
        messageId: cp.messageId,
        status: 'rewound',
        ...(digest !== null ? { digest } : {}),
      });
    await afterStep(
      m,
      r,
      [c.id],
      only(c.id, (s) => expect(s.map((e) => [e.type, e.data])).toEqual(expected)),
    );
  }
  toString = () =>
    `rewind(conv ${this.conv}, ${this.known ? 'known ' : ''}label ${this.label}${this.withDigest ? ', digest' : ''})`;
}

// ---- resume --------------------------------------------------------------------------------

export class Resume implements Cmd {
  constructor(
    readonly conv: number,
    readonly anyConv: boolean,
    readonly keepMessages: number,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const c = convFor(m, this.conv, this.anyConv);
    const res = await r.a.post(r.a.conv(c.id, '/resume'), { keepMessages: this.keepMessages });
    const cut = resumeCut(c, this.keepMessages);
    if (cut === null) {
      expectStatus('resume an empty conversation', res, 422, 'invalid_resume');
      await afterStep(m, r, [c.id]);
      return;
    }
    expectStatus('resume', res, 200);
    if (cut.dropped.length === 0 && c.cutAt === cut.cutAt && c.cutTip === c.tip) {
      // Already cut exactly here: a second RunResumed would record nothing, so none is appended.
      note('resume that changes nothing');
      expect(res.body).toMatchObject({
        cutAt: cut.cutAt,
        droppedCheckpoints: [],
        keptCount: cut.kept.length,
        revision: revisionOf(r, c.id),
      });
      await afterStep(
        m,
        r,
        [c.id],
        only(c.id, (s) => expect(s).toEqual([])),
      );
      return;
    }
    if (cut.dropped.length > 0) note('resume dropped checkpoints');
    expect(res.body).toMatchObject({
      cutAt: cut.cutAt,
      droppedCheckpoints: cut.dropped,
      keptCount: cut.kept.length,
      revision: revisionOf(r, c.id) + cut.dropped.length + 1,
    });
    const dropped = cut.dropped.map((label) => c.checkpoints.get(label)?.messageId);
    for (const label of cut.dropped) {
      const cp = c.checkpoints.get(label);
      if (cp)
        c.checkpoints.set(label, {
          label,
          messageId: cp.messageId,
          status: 'dropped',
          reason: 'trimmed_by_resume',
        });
    }
    c.cutAt = cut.cutAt;
    c.cutTip = c.tip;
    await afterStep(
      m,
      r,
      [c.id],
      only(c.id, (s) => {
        expect(types(s)).toEqual([...cut.dropped.map(() => 'CheckpointDropped'), 'RunResumed']);
        expect(s.slice(0, -1).map((e) => e.data)).toEqual(
          cut.dropped.map((label, i) => ({
            label,
            messageId: dropped[i],
            reason: 'trimmed_by_resume',
          })),
        );
        expect(s[s.length - 1].data).toMatchObject({
          cutAt: cut.cutAt,
          tip: c.tip,
          keepMessages: this.keepMessages,
          keptCount: cut.kept.length,
          droppedCheckpoints: cut.dropped,
        });
      }),
    );
  }
  toString = () =>
    `resume(conv ${this.conv}${this.anyConv ? ' (any)' : ''}, keep ${this.keepMessages})`;
}

// ---- failures ------------------------------------------------------------------------------

export class RecordFailure implements Cmd {
  constructor(readonly conv: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const c = convAt(m, this.conv);
    const n = ++m.counter;
    const input = { messages: [{ role: 'user', content: `attempt ${n}` }] };
    const error = { status: 529, message: `overloaded ${n}` };
    const res = await r.a.post(r.a.conv(c.id, '/failures'), { input, error });
    expectStatus('record failure', res, 201);
    expect(res.body).toEqual({ failureId: expect.any(String), revision: revisionOf(r, c.id) + 1 });
    c.pendingFailure = { input, error };
    await afterStep(
      m,
      r,
      [c.id],
      only(c.id, (s) =>
        expect(s.map((e) => [e.type, e.data])).toEqual([
          ['TurnFailed', { failureId: res.body.failureId, input, error }],
        ]),
      ),
    );
  }
  toString = () => `failure(conv ${this.conv})`;
}

/** GET retry: the failure, or nothing_to_retry — never conversation_not_found (invariant 10). */
export class Retry implements Cmd {
  constructor(readonly conv: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const c = convAt(m, this.conv);
    const res = await r.a.get(r.a.conv(c.id, '/retry'));
    if (c.pendingFailure) {
      expectStatus(m.restarts > 0 ? 'retry pending (after a restart)' : 'retry pending', res, 200);
      expect(res.body).toMatchObject(c.pendingFailure);
    } else expectStatus('retry', res, 404, 'nothing_to_retry');
    const ghost = await r.a.get(r.a.conv(`ghost-${++m.counter}`, '/retry'));
    expectStatus('retry of nothing loaded', ghost, 404, 'conversation_not_found');
    const other = await r.b.get(r.b.conv(c.id, '/retry'));
    expectStatus("retry of another tenant's conversation", other, 404, 'conversation_not_found');
    await afterStep(m, r, [c.id]);
  }
  toString = () => `retry(conv ${this.conv})`;
}

// ---- context -------------------------------------------------------------------------------

export type ContextMode = 'auto' | 'shake' | 'snapshot' | 'compact';

/** Vision models with a snapshot page shape, so the snapshot rung can run. */
const MODELS: Record<ProviderName, string> = {
  anthropic: 'claude-sonnet-4-5',
  'openai-chat': 'gpt-4o',
  'openai-responses': 'gpt-4.1',
  gemini: 'gemini-2.5-flash',
};

const ALL_RUNGS = ['elide', 'strip_images', 'snapshot', 'summary', 'drop'] as const;
/** Two drop markers and their acknowledgements, at most, beside the protected tail. */
const DROP_MARKERS_TOKENS = 2 * 90;

/**
 * Relative budgets only for windows at least this big (estimated tokens). In a smaller one (a
 * short window, or one compacted already) the last turn, kept verbatim, is most of it, and even
 * 80 % of it is mostly a target nothing fits in (measured: 2 in 3 such calls were cannot_fit).
 */
const MIN_RELATIVE = 6_000;

/**
 * A budget: fixed, or relative to what fills the window now (GET .../context/report): a target of
 * `share` × the estimate, so the ladder has to act (or answer cannot_fit).
 */
export type Budget =
  | { kind: 'fixed'; budgetTokens: number; maxTokens?: number }
  | { kind: 'relative'; share: number; maxTokens: number };

/** The budget whose target (budget − max(maxTokens, 5 % of it)) is about `target`. */
export const budgetForTarget = (target: number, maxTokens: number): number => {
  const budget = target + maxTokens;
  const fitted = Math.ceil(budget * 0.05) > maxTokens ? Math.ceil(target / 0.95) + 1 : budget;
  // The API refuses a budget that cannot hold maxTokens (400): the smallest one asked is just over.
  return Math.max(256, fitted, maxTokens + 1);
};

/** Capability overrides of the rung knobs (none change what the report estimates). */
export type Capabilities = {
  keepImages?: number;
  minElisionSavings?: number;
  protectTokens?: number;
};

interface RungReceiptView {
  rung: string;
  applied: boolean;
  reason: string;
  tokensBefore: number;
  decisionIds: string[];
}

export class Context implements Cmd {
  constructor(
    readonly conv: number,
    readonly anyConv: boolean,
    readonly provider: number,
    readonly mode: ContextMode,
    readonly budgetOf: Budget,
    readonly capabilities: Capabilities | null,
    readonly twice: boolean,
    /**
     * The conversation with the heaviest live window (the ladder's ground), not by index: by the
     * report's estimate for a relative budget, else by the model's count of characters.
     */
    readonly heaviest = false,
    /** Counted apart in the ladder numbers under this name (not a random command). */
    readonly label?: string,
  ) {}
  check = () => true;

  private target(m: Model): MConv {
    if (!this.heaviest) return convFor(m, this.conv, this.anyConv);
    const first = convFor(m, this.conv, false);
    return nonEmpty(m).reduce((a, x) => (windowWeight(x) > windowWeight(a) ? x : a), first);
  }

  /** The conversation's current estimate (null: nothing to estimate), checked on the way. */
  private async reported(r: Real, c: MConv, provider: ProviderName): Promise<number | null> {
    const url = `/context/report?provider=${provider}&model=${MODELS[provider]}`;
    const res = await r.a.get(r.a.conv(c.id, url));
    if (c.nodes.size === 0) {
      expectStatus('context report, empty', res, 200);
      expect(res.body).toMatchObject({ messages: 0, estimated: null });
      return null;
    }
    if (openToolCalls(c)) {
      expectStatus('context report, open tool calls', res, 422, 'not_a_turn_boundary');
      return null;
    }
    expectStatus('context report', res, 200);
    expect(res.body.estimated.total).toBeGreaterThan(0);
    return res.body.estimated.total as number;
  }

  async run(m: Model, r: Real) {
    const provider = pick(PROVIDER_NAMES, this.provider);
    const model = MODELS[provider];
    const b = this.budgetOf;
    let c = this.target(m);
    let estimate = b.kind === 'relative' ? await this.reported(r, c, provider) : null;
    if (b.kind === 'relative' && this.heaviest) {
      // The heaviest by what the report estimates now (decisions in force make a long window
      // light), every conversation's report checked on the way.
      for (const x of nonEmpty(m)) {
        if (x === c) continue;
        const e = await this.reported(r, x, provider);
        if (e !== null && (estimate === null || e > estimate)) [c, estimate] = [x, e];
      }
    }
    // Small windows get a fixed budget instead (counted apart, as relative→fixed).
    const reported = estimate !== null && estimate >= MIN_RELATIVE ? estimate : null;
    const budget =
      b.kind === 'fixed'
        ? { budgetTokens: b.budgetTokens, ...(b.maxTokens ? { maxTokens: b.maxTokens } : {}) }
        : reported === null
          ? { budgetTokens: 6_000, maxTokens: 512 }
          : {
              budgetTokens: budgetForTarget(Math.floor(b.share * reported), b.maxTokens),
              maxTokens: b.maxTokens,
            };
    const request = {
      provider,
      model,
      ...budget,
      mode: this.mode,
      ...(this.capabilities ? { capabilities: this.capabilities } : {}),
    };
    const bucket =
      this.label ??
      (b.kind === 'fixed'
        ? 'fixed budget'
        : reported === null
          ? 'relative→fixed'
          : 'relative budget');
    const res = await r.a.post(r.a.conv(c.id, '/context'), request);
    if (openToolCalls(c)) {
      // The tip waits for tool results: there is no request to send the model yet.
      expectStatus('context while tool calls are unanswered', res, 422, 'not_a_turn_boundary');
      await afterStep(m, r, [c.id]);
      return;
    }
    if (res.status === 422 && res.body?.code === 'cannot_fit') {
      // A valid outcome only when the numbers say so, every rung was tried, and (drop being
      // allowed) the system prompt, the tools and the protected tail alone are over the target.
      const floor = res.body.systemTokens + res.body.toolsTokens + res.body.protectedTailTokens;
      expect({
        over: res.body.estimatedTokens > res.body.targetTokens,
        floorOver: floor + DROP_MARKERS_TOKENS > res.body.targetTokens,
        budget: res.body.budgetTokens,
        tried: ALL_RUNGS.filter((x) =>
          (res.body.rungs as RungReceiptView[]).some((y) => y.rung === x),
        ),
      }).toEqual({
        over: true,
        floorOver: true,
        budget: budget.budgetTokens,
        tried: [...ALL_RUNGS],
      });
      note('context: cannot fit (numbers say so, every rung tried)');
      noteLadder(bucket, ['cannot_fit']);
      await afterStep(m, r, [c.id]); // nothing recorded
      return;
    }
    expectStatus(`context ${provider} ${this.mode}`, res, 200);
    const checkOne = (body: unknown, receipt: Record<string, unknown>, before: number | null) => {
      // invariant 6: valid for its provider, within the target (hence the budget).
      expect({
        provider,
        // An empty conversation's body has no messages yet (the caller appends the first).
        violations: checkBody(provider, body as never, { model }).filter(
          (v) => !(c.nodes.size === 0 && v.code === 'no_messages'),
        ),
      }).toEqual({ provider, violations: [] });
      expect(receipt.budgetTokens).toBe(budget.budgetTokens);
      expect(receipt.estimatedTokens as number).toBeLessThanOrEqual(receipt.targetTokens as number);
      expect(receipt.targetTokens as number).toBeLessThanOrEqual(budget.budgetTokens);
      if (this.mode === 'compact') {
        // No summarizer is configured in tests: the receipt must say so.
        expect(receipt.rungs).toEqual(
          expect.arrayContaining([
            expect.objectContaining({
              rung: 'summary',
              applied: false,
              reason: expect.stringMatching(/no summarizer configured/),
            }),
          ]),
        );
      }
      const rungs = receipt.rungs as RungReceiptView[];
      // The report estimates what the ladder starts from (nothing new decided in between).
      if (before !== null && rungs.length > 0) expect(rungs[0].tokensBefore).toBe(before);
      return rungs;
    };
    const rungs = checkOne(res.body.body, res.body.receipt, reported);
    const newIds = rungs.flatMap((x) => x.decisionIds);
    if (reported !== null && reported > (res.body.receipt.targetTokens as number)) {
      // Over its target when asked: something had to be decided for it to fit.
      expect({ over: reported, decided: newIds.length > 0 }).toEqual({
        over: reported,
        decided: true,
      });
    }
    const first = {
      hash: sha256(JSON.stringify(res.body.body)),
      contextId: res.body.contextId as string,
      prefixHash: res.body.receipt.prefixHash as string,
      newIds,
    };
    const calls = [first];
    if (this.twice) {
      // invariant 7: nothing changed → the same body again (decisions persist, pages re-rendered
      // from source), nothing new decided; the whole body's prefix hash is that of a call that
      // decided nothing.
      const again = await r.a.post(r.a.conv(c.id, '/context'), request);
      expectStatus('context again', again, 200);
      const rungs2 = checkOne(again.body.body, again.body.receipt, null);
      const second = {
        hash: sha256(JSON.stringify(again.body.body)),
        contextId: again.body.contextId as string,
        prefixHash: again.body.receipt.prefixHash as string,
        newIds: rungs2.flatMap((x) => x.decisionIds),
      };
      expect({ hash: second.hash, newIds: second.newIds }).toEqual({
        hash: first.hash,
        newIds: [],
      });
      if (first.newIds.length === 0) expect(second.prefixHash).toBe(first.prefixHash);
      calls.push(second);
    }
    const snapshotsInForce = new Set(
      c.decisions.filter((d) => d.rung === 'snapshot').map((d) => d.id),
    );
    let appliedIds: string[] = [];
    await afterStep(
      m,
      r,
      [c.id],
      only(c.id, (s) => {
        let i = 0;
        for (const call of calls) {
          const start = i;
          while (s[i]?.type === 'CompactionApplied') i += 1;
          const decisions = s.slice(start, i).map((e) => decisionOf(e.data.decision as never));
          const assembled = s[i];
          expect(assembled?.type).toBe('ContextAssembled');
          expect(assembled.data).toMatchObject({
            contextId: call.contextId,
            bodyHash: call.hash,
            prefixHash: call.prefixHash,
            tip: c.tip,
            // The live window: from the resume cut while the tip stayed there, else the root.
            cutAt: liveWindow(c)[0] ?? null,
            request: { provider, mode: this.mode, budgetTokens: budget.budgetTokens },
          });
          // The receipt's decisions are the ones recorded, in order.
          expect({
            events: decisions.map((d) => d.id),
            named: assembled.data.newDecisionIds,
          }).toEqual({
            events: call.newIds,
            named: call.newIds,
          });
          for (const e of s.slice(start, i)) checkNewDecision(c, e.data.decision as never);
          c.decisions.push(...decisions);
          for (const d of decisions) if (d.rung === 'snapshot') snapshotsInForce.add(d.id);
          appliedIds = assembled.data.decisionIds as string[];
          i += 1;
        }
        expect(i).toBe(s.length);
      }),
    );
    // Decisions applied: recorded ones of this conversation, on the active branch (a range whole).
    const onBranch = new Set(pathTo(c, c.tip));
    const byId = new Map(c.decisions.map((d) => [d.id, d]));
    for (const id of appliedIds) {
      const d = byId.get(id);
      expect({ id, known: d !== undefined }).toEqual({ id, known: true });
      if (!d) continue;
      const present = d.messageIds.filter((x) => onBranch.has(x)).length;
      const whole = d.rung === 'snapshot' || d.rung === 'summary' || d.rung === 'drop';
      expect({
        id,
        rung: d.rung,
        present: whole ? present === d.messageIds.length : present > 0,
      }).toEqual({ id, rung: d.rung, present: true });
    }
    if (this.twice || appliedIds.some((id) => snapshotsInForce.has(id))) {
      // invariant 7: the audit reproduction renders every page again from the source text (it has
      // no page cache), with nothing new decided, and must give the same bytes.
      const reproduced = await r.a.get(r.a.conv(c.id, `/contexts/${first.contextId}`));
      expectStatus('reproduce context', reproduced, 200);
      expect({ match: reproduced.body.match, hash: reproduced.body.bodyHash }).toEqual({
        match: true,
        hash: first.hash,
      });
      if (appliedIds.some((id) => snapshotsInForce.has(id))) note('reproduced with snapshot pages');
    }
    const last = calls[calls.length - 1];
    c.lastContext = {
      request,
      bodyHash: last.hash,
      prefixHash: last.prefixHash,
      decided: last.newIds.length > 0,
      events: r.events.get(c.id)?.length ?? 0,
    };
    const applied = [...new Set(rungs.filter((x) => x.applied).map((x) => x.rung))];
    noteLadder(bucket, applied);
    note(
      `context ${this.mode}: ${applied.join('+') || 'no rung'}, ${newIds.length} new decision(s)`,
    );
    for (const x of rungs)
      if (!x.applied) note(`context rung ${x.rung} not applied: ${x.reason.slice(0, 70)}`);
  }
  toString = () =>
    `context(${this.heaviest ? 'heaviest' : `conv ${this.conv}${this.anyConv ? ' (any)' : ''}`}, ${pick(PROVIDER_NAMES, this.provider)}, ${this.mode}, ${JSON.stringify(this.budgetOf)}${this.capabilities ? `, ${JSON.stringify(this.capabilities)}` : ''}${this.twice ? ', twice' : ''})`;
}

/**
 * A decision just made names real parts of the live window it was made on (as the model has it):
 * an elided result is a tool result of its message, a stripped image an image block at its path,
 * a range a contiguous run of the window after its head, with consistent ends.
 */
const checkNewDecision = (c: MConv, d: Record<string, unknown>) => {
  const window = liveWindow(c);
  const problems: string[] = [];
  const inWindow = (id: string) => window.includes(id);
  if (d.rung === 'elide') {
    for (const x of d.results as { messageId: string; toolUseId: string }[]) {
      const n = c.nodes.get(x.messageId);
      const found = n?.content.some(
        (b) => b.type === 'tool_result' && b.tool_use_id === x.toolUseId,
      );
      if (!inWindow(x.messageId) || !found) problems.push(`elided ${x.messageId}/${x.toolUseId}`);
    }
  } else if (d.rung === 'strip_images') {
    for (const x of d.images as { messageId: string; path: string }[]) {
      const n = c.nodes.get(x.messageId);
      const at = /^content\[(\d+)\](?:\.content\[(\d+)\])?$/.exec(x.path);
      const outer = at ? n?.content[Number(at[1])] : undefined;
      const block =
        at?.[2] === undefined
          ? outer
          : Array.isArray(outer?.content)
            ? (outer.content as MBlock[])[Number(at[2])]
            : undefined;
      if (!inWindow(x.messageId) || block?.type !== 'image') {
        problems.push(`stripped ${x.messageId} ${x.path}`);
      }
    }
  } else {
    const ids = d.coveredIds as string[];
    const at = window.indexOf(ids[0]);
    const contiguous = at > 0 && ids.every((id, k) => window[at + k] === id);
    if (!contiguous || d.fromId !== ids[0] || d.toId !== ids[ids.length - 1]) {
      problems.push(`range ${String(d.fromId)}..${String(d.toId)} (${ids.length})`);
    }
  }
  expect({ decision: d.id, rung: d.rung, problems }).toEqual({
    decision: d.id,
    rung: d.rung,
    problems: [],
  });
};

/** The tip waits for tool results (a tip moved mid-turn): no request can be built. */
const openToolCalls = (c: MConv): boolean => {
  const tip = c.nodes.get(c.tip as string);
  return tip?.role === 'assistant' && tip.hasToolUse;
};

// ---- restart -------------------------------------------------------------------------------

/**
 * A new app on the same data directory: everything survives; projections rebuild equal. Before
 * it, a snapshot-mode context of the heaviest live window (so pages are in force); after it, the
 * last context of each conversation (nothing written since), asked again, gives the same body
 * and decides nothing (and the same prefix hash, when it decided nothing either) — caches are
 * gone, so pages are rendered again from the source text (invariant 7).
 */
export class Restart implements Cmd {
  check = () => true;
  async run(m: Model, r: Real) {
    if (nonEmpty(m).length > 0) {
      const share = { kind: 'relative' as const, share: 0.65, maxTokens: 1024 };
      const label = 'before a restart';
      await new Context(0, false, m.restarts, 'snapshot', share, null, false, true, label).run(
        m,
        r,
      );
    }
    await r.h.restart();
    m.restarts += 1;
    note('restart');
    await fullCheck(m, r);
    const expected = new Map<string, SuffixCheck>();
    for (const id of m.order) {
      const c = m.convs.get(id) as MConv;
      const s = c.lastContext;
      if (s === null || (r.events.get(id)?.length ?? 0) !== s.events || expected.size >= 3)
        continue;
      const res = await r.a.post(r.a.conv(id, '/context'), s.request);
      expectStatus('context again after a restart', res, 200);
      const bodyHash = sha256(JSON.stringify(res.body.body));
      const prefixHash = res.body.receipt.prefixHash as string;
      expect({ id, bodyHash, ...(s.decided ? {} : { prefixHash }) }).toEqual({
        id,
        bodyHash: s.bodyHash,
        ...(s.decided ? {} : { prefixHash: s.prefixHash }),
      });
      if (!s.decided) note('context again after a restart, same prefix hash');
      expected.set(id, (suffix) =>
        expect(suffix.map((e) => [e.type, e.data.bodyHash, e.data.newDecisionIds])).toEqual([
          ['ContextAssembled', s.bodyHash, []],
        ]),
      );
      c.lastContext = { ...s, prefixHash, decided: false };
    }
    if (expected.size === 0) return;
    await checkLogs(m, r, expected);
    for (const id of expected.keys()) {
      const c = m.convs.get(id) as MConv;
      if (c.lastContext) c.lastContext.events = r.events.get(id)?.length ?? 0;
    }
  }
  toString = () => 'restart()';
}

// ---- the generator -------------------------------------------------------------------------

const conv = fc.nat({ max: 1000 });
const node = fc.nat({ max: 1000 });
/** Mostly a conversation with messages; sometimes any (empty ones included). */
const anyConv = fc.constantFrom(false, false, false, true);
const shape: fc.Arbitrary<TurnShape> = fc.record({
  rounds: fc.constantFrom(0, 0, 0, 1, 1, 2),
  calls: fc.integer({ min: 1, max: 2 }),
  long: fc.constantFrom(false, true, true),
  images: fc.constantFrom(0, 0, 1, 1, 2),
});
/** Mostly relative to the conversation's size (so the ladder must act), sometimes fixed. */
const budget: fc.Arbitrary<Budget> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('relative' as const),
      share: fc.constantFrom(0.35, 0.5, 0.65, 0.8, 0.9),
      maxTokens: fc.constantFrom(256, 1024),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Budget>(
      { kind: 'fixed', budgetTokens: 2_500, maxTokens: 256 },
      { kind: 'fixed', budgetTokens: 6_000, maxTokens: 512 },
      { kind: 'fixed', budgetTokens: 200_000 },
    ),
  },
);
/** Mostly the default knobs; sometimes fewer images kept, cheaper elisions, a smaller window. */
const capabilities = fc.constantFrom<Capabilities | null>(
  null,
  null,
  null,
  { keepImages: 0 },
  { keepImages: 1, minElisionSavings: 500 },
  { protectTokens: 1_500 },
);

export const commandArbitraries = (): fc.Arbitrary<Cmd>[] => {
  const commit = fc
    .tuple(
      conv,
      fc.constantFrom<ParentMode>('tip', 'tip', 'tip', 'earlier', 'earlier', 'mid'),
      node,
      shape,
      fc.boolean(),
    )
    .map(([c, p, n, s, t]) => new CommitTurn(c, p, n, s, t));
  const label = fc.nat({ max: 3 });
  const checkpoint = fc
    .tuple(
      conv,
      anyConv,
      label,
      fc.constantFrom<CheckpointAt>('tip', 'turn end', 'turn end', 'any message'),
      node,
      fc.boolean(),
    )
    .map(([c, a, l, t, n, x]) => new SetCheckpoint(c, a, l, t, n, x));
  const rewind = fc
    .tuple(conv, fc.constantFrom(true, true, true, false), label, fc.boolean())
    .map(([c, k, l, d]) => new Rewind(c, k, l, d));
  const context = fc
    .tuple(
      conv,
      anyConv,
      fc.nat({ max: 3 }),
      fc.constantFrom<ContextMode>('auto', 'shake', 'snapshot', 'compact'),
      budget,
      capabilities,
      fc.boolean(),
      fc.constantFrom(false, true, true, true),
    )
    .map(([c, a, p, mo, b, k, t, l]) => new Context(c, a, p, mo, b, k, t, l));
  return [
    commit,
    commit,
    commit,
    commit,
    checkpoint,
    checkpoint,
    rewind,
    rewind,
    context,
    fc.constant(null).map(() => new StartConversation()),
    fc.tuple(conv, node, fc.boolean()).map(([c, t, x]) => new RetryTurn(c, t, x)),
    fc.tuple(conv, node).map(([c, n]) => new MoveTip(c, n)),
    fc.tuple(conv, fc.boolean(), node).map(([c, t, n]) => new Fork(c, t, n)),
    checkpoint,
    rewind,
    fc
      .tuple(conv, anyConv, fc.constantFrom(1, 2, 3, 4, 6, 10))
      .map(([c, a, k]) => new Resume(c, a, k)),
    fc.tuple(conv).map(([c]) => new RecordFailure(c)),
    fc.tuple(conv).map(([c]) => new Retry(c)),
    context,
    context,
    context,
    commit,
    context,
    fc.constant(null).map(() => new Restart()),
  ];
};

/** Every run starts from one conversation with four turns (a plain one, three long tool loops
 * with images, ~20k tokens), so the random commands mostly act on something and the ladder has
 * something to climb. */
export const seedCommands = (): Cmd[] => [
  new CommitTurn(0, 'tip', 0, { rounds: 0, calls: 1, long: false, images: 0 }, false),
  new CommitTurn(0, 'tip', 0, { rounds: 1, calls: 2, long: true, images: 2 }, true),
  new CommitTurn(0, 'tip', 0, { rounds: 2, calls: 1, long: true, images: 1 }, false),
  new CommitTurn(0, 'tip', 0, { rounds: 1, calls: 1, long: true, images: 2 }, false),
];
