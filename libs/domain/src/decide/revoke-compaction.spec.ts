import { type ElisionDecision } from '../compaction';
import { type ContextAssembled } from '../events';
import { compactionsInForce } from '../state';
import { exec, newSession, ok, type Session } from '../testing/session';

const decision = (id: string): ElisionDecision => ({
  id,
  rung: 'elide',
  trigger: 'threshold',
  provider: 'anthropic',
  model: 'claude-x',
  tokensBefore: 100,
  tokensAfter: 60,
  cachedPrefixChanged: true,
  results: [{ messageId: 'm1', toolUseId: 't1', originalTokens: 40 }],
});

const receipt = (contextId: string, ids: string[]): ContextAssembled['data'] => ({
  contextId,
  request: {
    provider: 'anthropic',
    model: 'claude-x',
    budgetTokens: 1000,
    mode: 'auto',
    system: null,
    tools: [],
    maxTokens: null,
    overflow: null,
  },
  tip: null,
  cutAt: null,
  decisionIds: ids,
  newDecisionIds: ids,
  bodyHash: 'h',
  prefixHash: 'p',
  estimatedTokens: 500,
  rawTokens: 500,
  calibration: 1,
  sections: {
    system: 0,
    tools: 0,
    messages: 500,
    toolResults: 0,
    images: 0,
    snapshots: 0,
    summaries: 0,
  },
  overflowSample: null,
});

const withDecisions = (): Session => {
  const s = newSession();
  ok(s, { type: 'start', conversationId: 'c1' });
  ok(s, {
    type: 'recordContext',
    decisions: [decision('d1'), decision('d2')],
    assembled: receipt('ctx1', ['d1', 'd2']),
  });
  return s;
};

describe('revokeCompaction', () => {
  it('appends CompactionRevoked; the decision stays recorded but is no longer in force', () => {
    const s = withDecisions();
    const before = s.state.revision;
    const r = ok(s, { type: 'revokeCompaction', decisionId: 'd1', reason: 'need it back' });
    expect(r).toEqual({ decisionId: 'd1', revision: before + 1, replayed: false });
    expect(s.state.revision).toBe(before + 1);
    expect(s.log[s.log.length - 1]).toMatchObject({
      type: 'CompactionRevoked',
      data: { decisionId: 'd1', reason: 'need it back' },
    });
    expect(s.state.compactions.map((d) => d.id)).toEqual(['d1', 'd2']);
    expect(compactionsInForce(s.state).map((d) => d.id)).toEqual(['d2']);
    expect(s.state.revokedSinceContext).toEqual(['d1']);
  });

  it('appends nothing for a decision revoked already', () => {
    const s = withDecisions();
    ok(s, { type: 'revokeCompaction', decisionId: 'd1' });
    const length = s.log.length;
    expect(ok(s, { type: 'revokeCompaction', decisionId: 'd1' })).toMatchObject({
      replayed: true,
      revision: s.state.revision,
    });
    expect(s.log.length).toBe(length);
  });

  it('refuses an unknown decision and a conversation that does not exist', () => {
    const s = withDecisions();
    expect(exec(s, { type: 'revokeCompaction', decisionId: 'nope' })).toMatchObject({
      ok: false,
      error: { code: 'compaction_not_found' },
    });
    expect(exec(newSession(), { type: 'revokeCompaction', decisionId: 'd1' })).toMatchObject({
      ok: false,
      error: { code: 'conversation_not_found' },
    });
  });

  it('forgets "since the last context" once a context is handed out', () => {
    const s = withDecisions();
    ok(s, { type: 'revokeCompaction', decisionId: 'd2' });
    ok(s, { type: 'recordContext', decisions: [], assembled: receipt('ctx2', []) });
    expect(s.state.revokedSinceContext).toEqual([]);
    expect(s.state.revokedCompactions).toEqual(['d2']);
  });
});
