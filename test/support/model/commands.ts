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
  expectStatus,
  fullCheck,
  note,
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
    `commit(conv ${this.conv}, ${this.parent} ${this.parentPick}, ${this.shape.rounds}×${this.shape.calls}${this.shape.long ? ' long' : ''}${this.withTurnId ? ', turnId' : ''})`;
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
      ? turnMessages(m, { rounds: 0, calls: 0, long: false })
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
    expect(res.body).toEqual({ tip: to, revision: revisionOf(r, c.id) + 1 });
    c.tip = to;
    if (!c.nodes.get(to)?.boundary) note('tip moved mid-turn');
    // SPEC §5.3: exactly one TipMoved, and nothing else.
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
    // SPEC §5.4: a new conversation, fresh ids, the map covers exactly the copied path.
    expect(m.convs.has(forkId)).toBe(false);
    const path = pathTo(src, end);
    expect(Object.keys(idMap).sort()).toEqual([...path].sort());
    const copies = path.map((id) => idMap[id]);
    const known = allIds(m);
    expect(copies.filter((id) => known.has(id))).toEqual([]);
    expect(new Set(copies).size).toBe(copies.length);
    const f = forkConv(src, forkId, end, idMap);
    expect(res.body.revision).toBe(3 + path.length + f.checkpoints.size - 1);
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
            'TipMoved',
          ]);
          expect(s[0].data).toMatchObject({
            conversationId: forkId,
            forkedFrom: { conversationId: src.id, messageId: end },
          });
          expect(s[1].data).toEqual({
            sourceConversationId: src.id,
            sourceMessageId: end,
            idMap,
          });
          path.forEach((id, i) => {
            const n = f.nodes.get(idMap[id]);
            expect(s[2 + i].data.message).toMatchObject({
              id: n?.id,
              parentId: n?.parentId,
              role: n?.role,
              content: n?.content,
            });
          });
          expect(s.slice(2 + path.length, -1).map((e) => e.data)).toEqual(
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
      // SPEC §5.5: a trimmed target fails clearly and moves nothing.
      expectStatus('rewind to a dropped label', res, 409, 'checkpoint_dropped');
      expect(res.body).toMatchObject({ label, messageId: cp.messageId, reason: cp.reason });
      await afterStep(m, r, [c.id]);
      return;
    }
    expectStatus('rewind', res, 200);
    if (cp.status === 'rewound') note('rewind to a rewound label');
    const from = c.tip;
    // SPEC §5.5: lands exactly on the target.
    expect(res.body).toEqual({ tip: cp.messageId, revision: revisionOf(r, c.id) + 2 });
    c.tip = cp.messageId;
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
      only(c.id, (s) =>
        expect(s.map((e) => [e.type, e.data])).toEqual([
          ['CheckpointRewound', { label, messageId: cp.messageId, from, digest }],
          ['TipMoved', { from, to: cp.messageId, reason: 'rewind' }],
        ]),
      ),
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

/** GET retry: the failure, or nothing_to_retry — never conversation_not_found (SPEC §5.10). */
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

/** A budget, and the output reserve asked for (small → a small target the ladder must reach). */
export interface Budget {
  budgetTokens: number;
  maxTokens?: number;
}

export class Context implements Cmd {
  constructor(
    readonly conv: number,
    readonly anyConv: boolean,
    readonly provider: number,
    readonly mode: ContextMode,
    readonly budgetOf: Budget,
    readonly twice: boolean,
  ) {}
  get budget() {
    return this.budgetOf.budgetTokens;
  }
  check = () => true;
  private ask(r: Real, id: string, provider: ProviderName) {
    return r.a.post(r.a.conv(id, '/context'), {
      provider,
      model: MODELS[provider],
      ...this.budgetOf,
      mode: this.mode,
    });
  }
  async run(m: Model, r: Real) {
    const c = convFor(m, this.conv, this.anyConv);
    const provider = pick(PROVIDER_NAMES, this.provider);
    const res = await this.ask(r, c.id, provider);
    if (c.nodes.size === 0) {
      expectStatus('context of an empty conversation', res, 422, 'cannot_fit');
      await afterStep(m, r, [c.id]);
      return;
    }
    const tip = c.nodes.get(c.tip as string);
    if (tip?.role === 'assistant' && tip.hasToolUse) {
      // The tip waits for tool results: there is no request to send the model yet.
      expectStatus('context while tool calls are unanswered', res, 422, 'not_a_turn_boundary');
      await afterStep(m, r, [c.id]);
      return;
    }
    if (res.status === 422 && res.body?.code === 'cannot_fit') {
      // Only a real "does not fit": the numbers say so.
      expect(res.body.estimatedTokens).toBeGreaterThan(res.body.targetTokens);
      note('context: cannot fit (numbers say so)');
      await afterStep(m, r, [c.id]);
      return;
    }
    expectStatus(`context ${provider} ${this.mode}`, res, 200);
    const checkOne = (body: unknown, receipt: Record<string, unknown>) => {
      // SPEC §5.6: valid for its provider, within the budget.
      expect({
        provider,
        violations: checkBody(provider, body as never, { model: MODELS[provider] }),
      }).toEqual({
        provider,
        violations: [],
      });
      expect(receipt.estimatedTokens as number).toBeLessThanOrEqual(this.budget);
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
    };
    checkOne(res.body.body, res.body.receipt);
    const bodies: { hash: string; contextId: string }[] = [
      { hash: sha256(JSON.stringify(res.body.body)), contextId: res.body.contextId },
    ];
    if (this.twice) {
      // SPEC §5.7: nothing changed → the same body again, pages re-rendered from source.
      const again = await this.ask(r, c.id, provider);
      expectStatus('context again', again, 200);
      checkOne(again.body.body, again.body.receipt);
      expect(sha256(JSON.stringify(again.body.body))).toBe(bodies[0].hash);
      bodies.push({ hash: bodies[0].hash, contextId: again.body.contextId });
      const reproduced = await r.a.get(r.a.conv(c.id, `/contexts/${res.body.contextId}`));
      expectStatus('reproduce context', reproduced, 200);
      expect({ match: reproduced.body.match, hash: reproduced.body.bodyHash }).toEqual({
        match: true,
        hash: bodies[0].hash,
      });
    }
    let added = 0;
    await afterStep(
      m,
      r,
      [c.id],
      only(c.id, (s) => {
        let i = 0;
        for (const b of bodies) {
          const start = i;
          while (s[i]?.type === 'CompactionApplied') i += 1;
          const assembled = s[i];
          expect(assembled?.type).toBe('ContextAssembled');
          expect(assembled.data).toMatchObject({
            contextId: b.contextId,
            bodyHash: b.hash,
            tip: c.tip,
            request: { provider, mode: this.mode, budgetTokens: this.budget },
          });
          expect((assembled.data.newDecisionIds as string[]).length).toBe(i - start);
          added += i - start;
          i += 1;
        }
        expect(i).toBe(s.length);
        // Asked again without change: nothing new to decide.
        if (this.twice) expect(s[s.length - 2].type).toBe('ContextAssembled');
      }),
    );
    c.compactions += added;
    const applied = (res.body.receipt.rungs as { rung: string; applied: boolean }[])
      .filter((x) => x.applied)
      .map((x) => x.rung);
    note(`context ${this.mode}: ${applied.join('+') || 'no rung'}, ${added} new decision(s)`);
    for (const x of res.body.receipt.rungs as { rung: string; applied: boolean; reason: string }[])
      if (!x.applied) note(`context rung ${x.rung} not applied: ${x.reason.slice(0, 70)}`);
  }
  toString = () =>
    `context(conv ${this.conv}${this.anyConv ? ' (any)' : ''}, ${pick(PROVIDER_NAMES, this.provider)}, ${this.mode}, ${JSON.stringify(this.budgetOf)}${this.twice ? ', twice' : ''})`;
}

// ---- restart -------------------------------------------------------------------------------

/** A new app on the same data directory: everything survives; projections rebuild equal. */
export class Restart implements Cmd {
  check = () => true;
  async run(m: Model, r: Real) {
    await r.h.restart();
    m.restarts += 1;
    note('restart');
    await fullCheck(m, r);
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
  long: fc.constantFrom(false, false, true),
});
const budget: fc.Arbitrary<Budget> = fc.constantFrom(
  { budgetTokens: 2_500, maxTokens: 256 },
  { budgetTokens: 6_000, maxTokens: 512 },
  { budgetTokens: 200_000 },
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
      fc.boolean(),
    )
    .map(([c, a, p, mo, b, t]) => new Context(c, a, p, mo, b, t));
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
    fc.constant(null).map(() => new Restart()),
  ];
};

/** Every run starts from one conversation with two turns (a plain one, a tool loop), so the
 * random commands mostly act on something. */
export const seedCommands = (): Cmd[] => [
  new CommitTurn(0, 'tip', 0, { rounds: 0, calls: 1, long: false }, false),
  new CommitTurn(0, 'tip', 0, { rounds: 1, calls: 1, long: false }, true),
];
