/**
 * A branch switch that carries what was learned (`PUT …/tip` with `summarize`): the real app,
 * configured by ARBOR_SUMMARY_*, calls a local stand-in for the provider speaking the Anthropic
 * Messages wire format (libs/context/src/summary/testing/fake-provider.ts). Every assertion is on
 * what went over the wire, what the API answered, and the log.
 */
import { checkBody } from '@arbor/context';
import {
  type FakeProvider,
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

const KEY = 'sk-ant-test-branch-summary-key';
const MODEL = 'claude-haiku-4-5';
const SUMMARY = 'Branch summary: approach X failed, the lexer rejects unicode escapes (E42).';
const REQUEST = {
  provider: 'anthropic',
  model: 'claude-sonnet-4-5',
  budgetTokens: 200_000,
  cache: false,
};

interface Tree {
  id: string;
  /** The branch point: the first turn's answer. */
  ancestor: string;
  /** The abandoned branch's messages and its tip. */
  abandoned: string[];
  oldTip: string;
}

/** A goal turn, then one branch trying approach X (a tool call) that is about to be left. */
async function seed(api: Client): Promise<Tree> {
  const id = await api.start({ title: 'branch summary' });
  const first = await api.turn(id, null, [
    user('Goal: port the parser.'),
    assistant('Understood.'),
  ]);
  const x = await api.turn(id, first.tip, [
    user('Try approach X.'),
    msg('assistant', [text('Trying X.'), toolUse('toolu_x', 'bash', { cmd: 'make x' })]),
    msg('user', [toolResult('toolu_x', 'error E42: unicode escape rejected by the lexer')]),
    assistant('Approach X failed: the lexer rejects unicode escapes.'),
  ]);
  return { id, ancestor: first.tip, abandoned: x.messageIds, oldTip: x.tip };
}

const tipOf = async (api: Client, id: string): Promise<string> =>
  (await api.conversation(id)).tip as string;

describe('branch summary on a tip move, Anthropic Messages summarizer', () => {
  let h: Harness;
  let fake: FakeProvider;
  let api: Client;

  beforeAll(async () => {
    fake = await startFakeProvider({
      apiKey: KEY,
      provider: 'anthropic',
      contextWindowTokens: 8192,
      summarize: () => SUMMARY,
    });
    h = await startHarness({
      ARBOR_SUMMARY_PROVIDER: 'anthropic',
      ARBOR_SUMMARY_BASE_URL: fake.url,
      ARBOR_SUMMARY_API_KEY: KEY,
      ARBOR_SUMMARY_MODEL: MODEL,
      ARBOR_SUMMARY_WINDOW_TOKENS: '8192',
      ARBOR_SUMMARY_MAX_TOKENS: '512',
    });
    api = clientFor(h, (await h.createTenant('branch')).apiKey);
  });
  afterAll(async () => {
    await h?.destroy();
    await fake?.close();
  });

  it('records the summary of the path left, and the next context carries it right after the branch point', async () => {
    const t = await seed(api);
    const before = fake.requests.length;
    const moved = await api.put(api.conv(t.id, '/tip'), {
      messageId: t.ancestor,
      expectedTip: t.oldTip,
      summarize: { instruction: 'Keep the error code.' },
    });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({
      tip: t.ancestor,
      branchSummary: {
        ancestorId: t.ancestor,
        fromTip: t.oldTip,
        abandonedIds: t.abandoned,
        summarizerModel: MODEL,
      },
    });
    expect(moved.body.branchSummary.tokens).toBeGreaterThan(0);

    // Over the wire: the abandoned path only (not the goal turn), with both instructions.
    const sent = fake.requests.slice(before);
    expect(sent.length).toBe(1);
    expect(sent[0].user).toContain('Try approach X.');
    expect(sent[0].user).toContain('E42');
    expect(sent[0].user).not.toContain('Goal: port the parser.');
    expect(sent[0].user).toContain('branch of the conversation that is being left');
    expect(sent[0].user).toContain('Keep the error code.');

    // The log: the TipMoved, then the BranchSummarized with the range, the text and the model.
    const events = await api.events(t.id);
    const last = events.slice(-2);
    expect(last.map((e) => e.type)).toEqual(['TipMoved', 'BranchSummarized']);
    expect(last[1].data).toMatchObject({
      version: 1,
      ancestorId: t.ancestor,
      fromTip: t.oldTip,
      toTip: t.ancestor,
      abandonedIds: t.abandoned,
      ontoId: null,
      summary: SUMMARY,
      instruction: 'Keep the error code.',
      summarizerModel: MODEL,
      tokens: moved.body.branchSummary.tokens,
    });

    // The new branch: the context carries the summary right after the branch point.
    const z = await api.turn(t.id, t.ancestor, [user('Try approach Z.'), assistant('Trying Z.')]);
    const r = await api.post(api.conv(t.id, '/context'), REQUEST);
    expect(r.status).toBe(200);
    expect(checkBody('anthropic', r.body.body)).toEqual([]);
    const wire = JSON.stringify(r.body.body);
    const at = {
      point: wire.indexOf('Understood.'),
      summary: wire.indexOf(JSON.stringify(SUMMARY).slice(1, -1)),
      next: wire.indexOf('Try approach Z.'),
    };
    expect(at.point).toBeGreaterThan(0);
    expect(at.summary).toBeGreaterThan(at.point);
    expect(at.next).toBeGreaterThan(at.summary);
    expect(wire).toContain('[Branch summary: the conversation went back to this point.');
    expect(wire).not.toContain('Trying X.'); // the abandoned path itself is not in the body
    expect(r.body.receipt.branchSummaries).toEqual([
      {
        summaryId: moved.body.branchSummary.summaryId,
        afterMessageId: t.ancestor,
        messageId: `branch-summary-${String(moved.body.branchSummary.summaryId)}`,
        tokens: expect.any(Number),
      },
    ]);
    // Counted in the budget: its message (marker and framing included) is more than the text.
    const carried = r.body.receipt.branchSummaries[0].tokens as number;
    expect(carried).toBeGreaterThan(moved.body.branchSummary.tokens);

    // Reproduced byte for byte from the log.
    const reproduced = await api.get(api.conv(t.id, `/contexts/${String(r.body.contextId)}`));
    expect(reproduced.status).toBe(200);
    expect(reproduced.body.match).toBe(true);

    // Back on the abandoned branch: the summary is not carried there.
    await api.moveTip(t.id, t.oldTip);
    const back = await api.post(api.conv(t.id, '/context'), REQUEST);
    expect(back.status).toBe(200);
    expect(JSON.stringify(back.body.body)).not.toContain('<branch_summary>');
    expect(back.body.receipt.branchSummaries).toBeUndefined();
    // And on the branch it was made for again, it is.
    await api.moveTip(t.id, z.tip);
    const again = await api.post(api.conv(t.id, '/context'), REQUEST);
    expect(JSON.stringify(again.body.body)).toContain('<branch_summary>');
    for (const receipt of await api.contexts(t.id)) {
      const c = await api.get(api.conv(t.id, `/contexts/${String(receipt.contextId)}`));
      expect(c.body.match).toBe(true);
    }
  });

  it('moving to a branch beside it: the summary follows the path through the new tip', async () => {
    const t = await seed(api);
    const y = await api.turn(t.id, t.ancestor, [user('Try approach Y.'), assistant('Trying Y.')]);
    await api.moveTip(t.id, t.oldTip);
    const moved = await api.put(api.conv(t.id, '/tip'), { messageId: y.tip, summarize: true });
    expect(moved.status).toBe(200);
    expect(moved.body.branchSummary.ancestorId).toBe(t.ancestor);
    const r = await api.post(api.conv(t.id, '/context'), REQUEST);
    const wire = JSON.stringify(r.body.body);
    expect(wire.indexOf('<branch_summary>')).toBeGreaterThan(wire.indexOf('Understood.'));
    expect(wire.indexOf('Try approach Y.')).toBeGreaterThan(wire.indexOf('<branch_summary>'));
    // A third branch from the same point is not the one it was made for.
    const w = await api.turn(t.id, t.ancestor, [user('Try approach W.'), assistant('Trying W.')]);
    await api.moveTip(t.id, w.tip);
    const other = await api.post(api.conv(t.id, '/context'), REQUEST);
    expect(JSON.stringify(other.body.body)).not.toContain('<branch_summary>');
    // Counted in the budget: the two branches differ by one letter and the carried summary.
    const carried = r.body.receipt.branchSummaries[0].tokens as number;
    const diff = (r.body.receipt.rawTokens as number) - (other.body.receipt.rawTokens as number);
    expect(Math.abs(diff - carried)).toBeLessThanOrEqual(2);
  });

  it('a summarizer failure: 502 summarizer_failed, and the tip does not move', async () => {
    const t = await seed(api);
    const failure = {
      status: 500,
      body: { type: 'error', error: { type: 'api_error', message: 'Internal server error' } },
    };
    fake.script.push(failure, failure);
    const r = await api.put(api.conv(t.id, '/tip'), { messageId: t.ancestor, summarize: true });
    expect(r.status).toBe(502);
    expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(r.body.code).toBe('summarizer_failed');
    expect(await tipOf(api, t.id)).toBe(t.oldTip);
    expect((await api.events(t.id)).some((e) => e.type === 'BranchSummarized')).toBe(false);
  });

  it('moving down the current path leaves nothing: 422 nothing_to_summarize, nothing moves', async () => {
    const t = await seed(api);
    await api.moveTip(t.id, t.ancestor);
    const r = await api.put(api.conv(t.id, '/tip'), { messageId: t.oldTip, summarize: true });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('nothing_to_summarize');
    expect(await tipOf(api, t.id)).toBe(t.ancestor);
  });

  it('summarize with the tip moved to none: 400 validation_failed, nothing moves', async () => {
    const t = await seed(api);
    const r = await api.put(api.conv(t.id, '/tip'), { messageId: null, summarize: true });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('validation_failed');
    expect(await tipOf(api, t.id)).toBe(t.oldTip);
  });

  it("another tenant's key: the conversation does not exist for it, nothing is summarized", async () => {
    const t = await seed(api);
    const other = clientFor(h, (await h.createTenant('other')).apiKey);
    const before = fake.requests.length;
    const r = await other.put(other.conv(t.id, '/tip'), {
      messageId: t.ancestor,
      summarize: true,
    });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('conversation_not_found');
    expect(fake.requests.length).toBe(before);
    expect(await tipOf(api, t.id)).toBe(t.oldTip);
    // The same ids in the other tenant's own conversation: its contexts never carry A's summary.
    await api.put(api.conv(t.id, '/tip'), { messageId: t.ancestor, summarize: true });
    const mine = await other.start({ id: t.id, title: 'same id' });
    expect(mine).toBe(t.id);
    await other.turn(t.id, null, [user('Hello.'), assistant('Hi.')]);
    const c = await other.post(other.conv(t.id, '/context'), REQUEST);
    expect(c.status).toBe(200);
    expect(JSON.stringify(c.body.body)).not.toContain('<branch_summary>');
  });
});

describe('branch summary without a summarizer', () => {
  let h: Harness;
  afterAll(async () => {
    await h?.destroy();
  });

  it('422 summarizer_not_configured, and the tip does not move', async () => {
    h = await startHarness({ ARBOR_SUMMARY_MODEL: MODEL });
    const api = clientFor(h, (await h.createTenant('none')).apiKey);
    const t = await seed(api);
    const r = await api.put(api.conv(t.id, '/tip'), { messageId: t.ancestor, summarize: true });
    expect(r.status).toBe(422);
    expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(r.body.code).toBe('summarizer_not_configured');
    expect(await tipOf(api, t.id)).toBe(t.oldTip);
    // Without summarize the same move works as before: one TipMoved.
    const plain = await api.put(api.conv(t.id, '/tip'), { messageId: t.ancestor });
    expect(plain.status).toBe(200);
    expect(plain.body.branchSummary).toBeUndefined();
  });
});
