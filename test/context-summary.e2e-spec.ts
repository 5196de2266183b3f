/**
 * The summary rung through HTTP: the real app, configured by ARBOR_SUMMARY_*, calls a local
 * stand-in for the provider (libs/context/src/summary/testing/fake-provider.ts: node:http on
 * 127.0.0.1, Anthropic Messages or OpenAI chat completions wire format, the provider's own
 * "too long" errors when a request does not fit its window). The conversation is built through
 * the API; every assertion is on what went over the wire, what the API answered, and the log.
 */
import { checkBody } from '@arbor/context';
import {
  type FakeProvider,
  type FakeProviderOptions,
  type RecordedRequest,
  startFakeProvider,
} from '../libs/context/src/summary/testing/fake-provider';
import {
  assistant,
  type Client,
  clientFor,
  msg,
  text,
  toolResult,
  toolUse,
  user,
} from './support/api';
import { type Harness, startHarness } from './support/harness';

const KEY = 'sk-ant-test-summary-key';
const MODEL = 'claude-haiku-4-5';
/** The summarizer's own window, small so that one call cannot hold the whole middle. */
const WINDOW = 4096;
const MAX_SUMMARY = 256;
const STEPS = 12;
const GOAL = 'The task: port the parser to the new AST and keep every test green.';

/** ~4,000 tokens of tool output naming its step on every line. */
const bigResult = (step: number) =>
  Array.from({ length: 400 }, (_, j) => `step ${step} output line ${j}: nothing failed here`).join(
    '\n',
  );

/** What the fake answers: the steps it has seen (its transcript part and the summary so far). */
const stepsSeen = (request: RecordedRequest): number[] =>
  [...new Set([...request.user.matchAll(/\bstep (\d+)\b/g)].map((m) => Number(m[1])))].sort(
    (a, b) => a - b,
  );
const summaryOf = (n: number, request: RecordedRequest): string =>
  `Summary ${n}. Goal: port the parser. Covered: ${stepsSeen(request)
    .map((s) => `step ${s}`)
    .join(', ')}.`;

interface Rung {
  rung: string;
  applied: boolean;
  trigger: string;
  reason: string;
}

const rungOf = (receipt: { rungs: Rung[] }, name: string): Rung[] =>
  receipt.rungs.filter((r) => r.rung === name);

/** The goal, STEPS tool steps with large results, and a last short tool turn. */
async function seed(api: Client): Promise<string> {
  const id = await api.start({ title: 'summary' });
  let tip = (await api.turn(id, null, [user(GOAL), assistant('Understood.')])).tip;
  for (let i = 0; i < STEPS; i++) {
    const call = `toolu_step_${i}`;
    tip = (
      await api.turn(id, tip, [
        user(`Now do step ${i}.`),
        msg('assistant', [text(`Running step ${i}.`), toolUse(call, 'bash', { cmd: `make ${i}` })]),
        msg('user', [toolResult(call, bigResult(i))]),
        assistant(`Step ${i} is done.`),
      ])
    ).tip;
  }
  await api.turn(id, tip, [
    user('Last: run the linter.'),
    msg('assistant', [text('Linting.'), toolUse('toolu_lint', 'bash', { cmd: 'lint' })]),
    msg('user', [toolResult('toolu_lint', 'clean')]),
    assistant('The linter is clean.'),
  ]);
  return id;
}

interface Setup {
  h: Harness;
  api: Client;
  fake: FakeProvider;
}

async function withSummarizer(options: Omit<FakeProviderOptions, 'apiKey'>): Promise<Setup> {
  const fake = await startFakeProvider({ apiKey: KEY, summarize: summaryOf, ...options });
  const h = await startHarness({
    ARBOR_SUMMARY_PROVIDER: options.provider,
    ARBOR_SUMMARY_BASE_URL: fake.url,
    ARBOR_SUMMARY_API_KEY: KEY,
    ARBOR_SUMMARY_MODEL: MODEL,
    ARBOR_SUMMARY_WINDOW_TOKENS: String(WINDOW),
    ARBOR_SUMMARY_MAX_TOKENS: String(MAX_SUMMARY),
  });
  return { h, api: clientFor(h, (await h.createTenant('summary')).apiKey), fake };
}

const teardown = async (s: Setup | undefined) => {
  await s?.h.destroy();
  await s?.fake.close();
};

const compact = (api: Client, id: string, extra: Record<string, unknown> = {}) =>
  api.post(api.conv(id, '/context'), {
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    budgetTokens: 200_000,
    mode: 'compact',
    ...extra,
  });

/**
 * Every request was one window of a fold over the middle: each fits the summarizer's window as
 * the provider counts it, together they are larger than it, each message went out in exactly
 * one successful window, and each window after the first carries the summary so far.
 */
function expectFoldOverMiddle(fake: FakeProvider): number[] {
  const ok = fake.requests.filter((r) => r.status === 200);
  expect(ok.length).toBeGreaterThan(1);
  for (const r of fake.requests) {
    // The head (the goal) and the tail are not the middle: never sent to the summarizer.
    expect(r.user).not.toContain(GOAL);
    expect(r.user).not.toContain('Last: run the linter.');
  }
  for (const r of ok) expect(r.measured + r.maxTokens).toBeLessThanOrEqual(WINDOW);
  expect(ok.reduce((n, r) => n + r.measured, 0)).toBeGreaterThan(WINDOW);
  const transcripts = ok.map(
    (r) => /<transcript>\n([\s\S]*)\n<\/transcript>/.exec(r.user)?.[1] ?? '',
  );
  const covered = stepsSeen(ok[ok.length - 1]);
  expect(covered.length).toBeGreaterThan(STEPS / 2);
  for (const step of covered) {
    const prompt = `[user]\nNow do step ${step}.`;
    expect(transcripts.filter((t) => t.includes(prompt))).toHaveLength(1);
  }
  ok.slice(1).forEach((r, k) => {
    expect(r.user).toContain(`<summary_so_far>\n${ok[k].reply}\n</summary_so_far>`);
  });
  return covered;
}

describe('summary rung through HTTP, Anthropic Messages summarizer', () => {
  let s: Setup;
  let conv: string;
  let compacted: { contextId: string; body: unknown; receipt: { prefixHash: string } };

  beforeAll(async () => {
    s = await withSummarizer({ provider: 'anthropic', contextWindowTokens: WINDOW });
    conv = await seed(s.api);
  });
  afterAll(() => teardown(s));

  it('compact applies the summary rung with the text the summarizer returned, and records it', async () => {
    const r = await compact(s.api, conv);
    expect(r.status).toBe(200);
    compacted = r.body;
    const [rung] = rungOf(r.body.receipt, 'summary');
    expect(rung).toMatchObject({ applied: true, trigger: 'compact' });

    // The wire: Anthropic's endpoint, auth headers and body shape, on every request.
    expect(s.fake.requests.length).toBeGreaterThan(1);
    for (const req of s.fake.requests) {
      expect(req.method).toBe('POST');
      expect(req.path).toBe('/v1/messages');
      expect(req.headers['x-api-key']).toBe(KEY);
      expect(req.headers['anthropic-version']).toBe('2023-06-01');
      expect(req.headers['content-type']).toBe('application/json');
      expect(req.headers.authorization).toBeUndefined();
      expect(Object.keys(req.body).sort()).toEqual(['max_tokens', 'messages', 'model', 'system']);
      expect(req.body.model).toBe(MODEL);
      expect(req.body.max_tokens).toBe(MAX_SUMMARY);
      expect(req.body.system).toContain('You compact the history of a long conversation');
      expect(req.body.messages).toEqual([
        { role: 'user', content: expect.stringContaining('<transcript>') },
      ]);
    }
    const covered = expectFoldOverMiddle(s.fake);
    expect(covered.slice(0, 2)).toEqual([0, 1]);

    // The body carries the last window's summary, which covers the steps of the whole middle.
    const last = s.fake.requests[s.fake.requests.length - 1];
    expect(last.user).toContain('This is the end of the transcript.');
    const summary = last.reply as string;
    expect(summary).toMatch(/^Summary \d+\. Goal: port the parser\. Covered: step 0, step 1, /);
    const body = JSON.stringify(r.body.body);
    expect(body).toContain(JSON.stringify(summary).slice(1, -1));
    expect(body).toContain('[Summary of earlier conversation:');
    expect(body).toContain(`written by ${MODEL}`);
    expect(checkBody('anthropic', r.body.body)).toEqual([]);
    // Head and tail verbatim.
    expect(JSON.stringify(r.body.body.messages[0])).toContain(GOAL);
    expect(body).toContain('The linter is clean.');

    // The log: one CompactionApplied with the summary decision, then the receipt.
    const events = await s.api.get(s.api.conv(conv, `/events?fromRevision=${r.body.revision - 1}`));
    const types = events.body.items.map((e: { type: string }) => e.type);
    expect(types).toEqual(['CompactionApplied', 'ContextAssembled']);
    const decision = events.body.items[0].data.decision;
    expect(decision).toMatchObject({
      rung: 'summary',
      trigger: 'compact',
      summary,
      summarizerModel: MODEL,
      windows: s.fake.requests.length,
    });
    expect(decision.coveredIds.length).toBeGreaterThan(STEPS);
  });

  it('an auto call at the same budget hands out the same bytes from the decision, without asking again', async () => {
    const sent = s.fake.requests.length;
    const auto = await compact(s.api, conv, { mode: 'auto' });
    expect(auto.status).toBe(200);
    expect(auto.body.receipt.rungs).toEqual([]);
    expect(JSON.stringify(auto.body.body)).toBe(JSON.stringify(compacted.body));
    expect(s.fake.requests.length).toBe(sent);
    const events = await s.api.get(s.api.conv(conv, `/events?fromRevision=${auto.body.revision}`));
    expect(events.body.items.map((e: { type: string }) => e.type)).toEqual(['ContextAssembled']);
    // Again: the same prefix hash (nothing new decided), and still no summary request.
    const again = await compact(s.api, conv, { mode: 'auto' });
    expect(again.body.receipt.prefixHash).toBe(auto.body.receipt.prefixHash);
    expect(JSON.stringify(again.body.body)).toBe(JSON.stringify(compacted.body));
    // The audit log reproduces the compacted context from the recorded decision alone.
    const reproduced = await s.api.get(s.api.conv(conv, `/contexts/${compacted.contextId}`));
    expect(reproduced.status).toBe(200);
    expect(reproduced.body.match).toBe(true);
    expect(JSON.stringify(reproduced.body.body)).toBe(JSON.stringify(compacted.body));
    expect(s.fake.requests.length).toBe(sent);
  });

  it('a summarizer answering 500 twice: the rung says why in the receipt and nothing is decided', async () => {
    const fresh = await seed(s.api);
    const before = s.fake.requests.length;
    const error = {
      status: 500,
      body: { type: 'error', error: { type: 'api_error', message: 'Internal server error' } },
    };
    s.fake.script.push(error, error);
    const r = await compact(s.api, fresh);
    expect(r.status).toBe(200);
    const [rung] = rungOf(r.body.receipt, 'summary');
    expect(rung.applied).toBe(false);
    expect(rung.reason).toBe('summarizer failed: HTTP 500 api_error: Internal server error');
    // One retry, then given up; the ladder did not call it again for a request that fits.
    expect(s.fake.requests.length - before).toBe(2);
    expect(JSON.stringify(r.body.body)).not.toContain('[Summary of earlier conversation');
    expect(checkBody('anthropic', r.body.body)).toEqual([]);
    const events = await s.api.get(s.api.conv(fresh, `/events?fromRevision=${r.body.revision}`));
    expect(events.body.items.map((e: { type: string }) => e.type)).toEqual(['ContextAssembled']);

    // Over budget with only the summary left to try (no vision, no snapshot): 422 cannot_fit,
    // the failure in the rungs, and the failing provider asked once (plus its one retry).
    s.fake.script.push(error, error);
    const asked = s.fake.requests.length;
    const over = await s.api.post(s.api.conv(fresh, '/context'), {
      provider: 'openai-chat',
      model: 'gpt-3.5-turbo',
      budgetTokens: 5000,
      allowDrop: false,
    });
    expect(over.status).toBe(422);
    expect(over.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(over.body.code).toBe('cannot_fit');
    expect(s.fake.requests.length - asked).toBe(2);
    expect(over.body.rungs).toContainEqual(
      expect.objectContaining({
        rung: 'summary',
        applied: false,
        reason: 'summarizer failed: HTTP 500 api_error: Internal server error',
      }),
    );
  });
});

describe('summary rung through HTTP, a provider that counts more than our estimate', () => {
  let s: Setup | undefined;
  afterEach(async () => {
    await teardown(s);
    s = undefined;
  });

  it('Anthropic "prompt is too long": the window shrinks and the fold completes', async () => {
    s = await withSummarizer({
      provider: 'anthropic',
      contextWindowTokens: WINDOW,
      inflation: 1.5,
    });
    const conv = await seed(s.api);
    const r = await compact(s.api, conv);
    expect(r.status).toBe(200);
    expect(rungOf(r.body.receipt, 'summary')[0]).toMatchObject({ applied: true });
    const rejected = s.fake.requests.filter((q) => q.status === 400);
    expect(rejected.length).toBeGreaterThan(0);
    // The retry after a rejection is smaller than the rejected request.
    const at = s.fake.requests.indexOf(rejected[0]);
    expect(s.fake.requests[at + 1].measured).toBeLessThan(rejected[0].measured);
    expectFoldOverMiddle(s.fake);
    expect(checkBody('anthropic', r.body.body)).toEqual([]);
    expect(JSON.stringify(r.body.body)).toContain(
      s.fake.requests[s.fake.requests.length - 1].reply,
    );
  });

  it('OpenAI chat completions context_length_exceeded: the window shrinks and the fold completes', async () => {
    s = await withSummarizer({
      provider: 'openai-chat',
      contextWindowTokens: WINDOW,
      inflation: 1.5,
    });
    const conv = await seed(s.api);
    const r = await compact(s.api, conv, { provider: 'openai-chat', model: 'gpt-4o' });
    expect(r.status).toBe(200);
    expect(rungOf(r.body.receipt, 'summary')[0]).toMatchObject({ applied: true });
    for (const req of s.fake.requests) {
      expect(req.method).toBe('POST');
      expect(req.path).toBe('/v1/chat/completions');
      expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(req.headers['x-api-key']).toBeUndefined();
      expect(req.body.model).toBe(MODEL);
      expect(req.body.max_completion_tokens).toBe(MAX_SUMMARY);
      expect(req.body.messages).toEqual([
        { role: 'system', content: expect.stringContaining('You compact the history') },
        { role: 'user', content: expect.stringContaining('<transcript>') },
      ]);
    }
    const rejected = s.fake.requests.filter((q) => q.status === 400);
    expect(rejected.length).toBeGreaterThan(0);
    const at = s.fake.requests.indexOf(rejected[0]);
    expect(s.fake.requests[at + 1].measured).toBeLessThan(rejected[0].measured);
    expectFoldOverMiddle(s.fake);
    const summary = s.fake.requests[s.fake.requests.length - 1].reply as string;
    expect(checkBody('openai-chat', r.body.body)).toEqual([]);
    expect(JSON.stringify(r.body.body)).toContain(summary);
  });
});

describe('summary rung through HTTP, nothing to call', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.destroy();
    h = undefined;
  });

  it('a summarizer that is down: compact says so in the receipt; over budget the answer is cannot_fit naming it', async () => {
    const gone = await startFakeProvider({
      apiKey: KEY,
      provider: 'anthropic',
      contextWindowTokens: WINDOW,
    });
    await gone.close();
    h = await startHarness({
      ARBOR_SUMMARY_BASE_URL: gone.url,
      ARBOR_SUMMARY_API_KEY: KEY,
      ARBOR_SUMMARY_MODEL: MODEL,
    });
    const api = clientFor(h, (await h.createTenant('down')).apiKey);
    const conv = await seed(api);
    const r = await compact(api, conv);
    expect(r.status).toBe(200);
    const [rung] = rungOf(r.body.receipt, 'summary');
    expect(rung.applied).toBe(false);
    expect(rung.reason).toMatch(
      /^summarizer failed: network_error: request failed: connect ECONNREFUSED 127\.0\.0\.1:\d+$/,
    );
    expect(checkBody('anthropic', r.body.body)).toEqual([]);

    // Only a summary could make it fit (no vision, so no snapshot): a problem naming every rung.
    const over = await api.post(api.conv(conv, '/context'), {
      provider: 'openai-chat',
      model: 'gpt-3.5-turbo',
      budgetTokens: 5000,
      allowDrop: false,
    });
    expect(over.status).toBe(422);
    expect(over.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(over.body.code).toBe('cannot_fit');
    expect(over.body.detail).toMatch(/^the context cannot fit: \d+ estimated tokens > target \d+/);
    const summaries = (over.body.rungs as Rung[]).filter((x) => x.rung === 'summary');
    expect(summaries.length).toBe(2); // the planned step, and the escalation
    expect(summaries[0].reason).toMatch(/^summarizer failed: network_error: .*ECONNREFUSED/);
    expect(summaries[1].reason).toBe(`${summaries[0].reason} (not asked again in this call)`);
    expect(summaries.every((x) => !x.applied)).toBe(true);
  });

  it('no summarizer configured: compact says the rung is unavailable and compacts onto pages', async () => {
    h = await startHarness({ ARBOR_SUMMARY_MODEL: MODEL });
    const api = clientFor(h, (await h.createTenant('none')).apiKey);
    const conv = await seed(api);
    const r = await compact(api, conv);
    expect(r.status).toBe(200);
    const [rung] = rungOf(r.body.receipt, 'summary');
    expect(rung).toMatchObject({
      applied: false,
      trigger: 'compact',
      reason: 'no summarizer configured: compacting onto snapshot pages instead',
    });
    expect(rungOf(r.body.receipt, 'snapshot')[0]).toMatchObject({ applied: true });
    expect(checkBody('anthropic', r.body.body)).toEqual([]);
  });
});
