import { type ElisionDecision } from '../compaction';
import { type ContextAssembled } from '../events';
import { exec, newSession, ok, type Session, text, user } from '../testing/session';

const assistant = (
  t: string,
  usage?: { input_tokens: number; cache_read_input_tokens?: number },
) => ({
  role: 'assistant' as const,
  content: [text(t)],
  ...(usage ? { usage } : {}),
});

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

const receipt = (over: Partial<ContextAssembled['data']> = {}): ContextAssembled['data'] => ({
  contextId: 'ctx1',
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
  decisionIds: [],
  newDecisionIds: [],
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
  ...over,
});

const started = (): Session => {
  const s = newSession();
  ok(s, { type: 'start', conversationId: 'c1' });
  return s;
};

describe('recordContext', () => {
  it('appends each new decision, then the receipt, and keeps decisions in force', () => {
    const s = started();
    const r = ok(s, {
      type: 'recordContext',
      decisions: [decision('d1')],
      assembled: receipt({ decisionIds: ['d1'], newDecisionIds: ['d1'] }),
    });
    expect(s.log.slice(-2).map((e) => e.type)).toEqual(['CompactionApplied', 'ContextAssembled']);
    expect(r).toEqual({ contextId: 'ctx1', revision: 2 });
    expect(s.state.compactions.map((d) => d.id)).toEqual(['d1']);
  });

  it('refuses a reused decision id, a receipt naming other decisions, or unknown ones', () => {
    const s = started();
    ok(s, {
      type: 'recordContext',
      decisions: [decision('d1')],
      assembled: receipt({ decisionIds: ['d1'], newDecisionIds: ['d1'] }),
    });
    const reuse = exec(s, {
      type: 'recordContext',
      decisions: [decision('d1')],
      assembled: receipt({ decisionIds: ['d1'], newDecisionIds: ['d1'] }),
    });
    expect(reuse.ok || reuse.error.code).toBe('invalid_command');
    const mismatch = exec(s, {
      type: 'recordContext',
      decisions: [decision('d2')],
      assembled: receipt({ decisionIds: ['d2'], newDecisionIds: [] }),
    });
    expect(mismatch.ok || mismatch.error.code).toBe('invalid_command');
    const unknown = exec(s, {
      type: 'recordContext',
      decisions: [],
      assembled: receipt({ decisionIds: ['nope'] }),
    });
    expect(unknown.ok || unknown.error.code).toBe('invalid_command');
  });

  it('pairs the first measured usage after a context with its estimate, once', () => {
    const s = started();
    ok(s, {
      type: 'recordContext',
      decisions: [],
      assembled: receipt({ estimatedTokens: 990, rawTokens: 900 }),
    });
    ok(s, {
      type: 'commitTurn',
      parentId: null,
      messages: [
        user(text('hi')),
        assistant('a', { input_tokens: 600, cache_read_input_tokens: 400 }),
      ],
    });
    expect(s.state.calibration).toEqual([
      { provider: 'anthropic', estimated: 900, measured: 1000 },
    ]);
    expect(s.state.pendingContext).toBeNull();
    ok(s, {
      type: 'commitTurn',
      parentId: s.state.tip,
      messages: [user(text('again')), assistant('b', { input_tokens: 5000 })],
    });
    expect(s.state.calibration).toHaveLength(1);
  });

  it('records an overflow report as a sample', () => {
    const s = started();
    ok(s, {
      type: 'recordContext',
      decisions: [],
      assembled: receipt({ overflowSample: { estimated: 190_000, measured: 200_251 } }),
    });
    expect(s.state.calibration).toEqual([
      { provider: 'anthropic', estimated: 190_000, measured: 200_251 },
    ]);
  });
});
