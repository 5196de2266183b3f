/**
 * Turns that end on answered tool results (a run stopped on a tool result), and the tip moved to
 * none (an empty branch), through the real app on a real SQLite file.
 */
import { checkBody } from '@arbor/context';
import {
  assistant,
  clientFor,
  type Client,
  exchange,
  msg,
  text,
  toolResult,
  toolUse,
  user,
} from './support/api';
import { type Harness, startHarness } from './support/harness';

const PROVIDERS = [
  { provider: 'anthropic', model: 'claude-sonnet-4-5' },
  { provider: 'openai-chat', model: 'gpt-4o' },
  { provider: 'openai-responses', model: 'gpt-4.1' },
  { provider: 'gemini', model: 'gemini-2.5-pro' },
] as const;

/** The last item of a provider body: what the model continues from. */
const lastItem = (provider: string, body: Record<string, unknown>): unknown => {
  const list = (body.messages ?? body.input ?? body.contents) as unknown[];
  return list[list.length - 1];
};

/** A prompt, parallel calls x and y, and the message answering both: no assistant answer. */
const stopped = (label: string) => [
  user(`do ${label}`),
  msg('assistant', [toolUse(`x_${label}`), toolUse(`y_${label}`)]),
  msg('user', [toolResult(`x_${label}`, 'one'), toolResult(`y_${label}`, 'two')]),
];

describe('open turns over HTTP', () => {
  let h: Harness;
  let c: Client;
  beforeAll(async () => {
    h = await startHarness();
    c = clientFor(h, (await h.createTenant('open-turns')).apiKey);
  });
  afterAll(async () => {
    await h.destroy();
  });

  describe('a turn that ends on answered tool results', () => {
    it('commits; the next turn is the assistant continuing; a context on it is valid for every provider', async () => {
      const id = await c.start();
      const t1 = await c.turn(id, null, exchange('1'));
      const t2 = await c.turn(id, t1.tip, stopped('2'));
      expect((await c.conversation(id)).tip).toBe(t2.messageIds[2]);
      for (const { provider, model } of PROVIDERS) {
        const r = await c.post(c.conv(id, '/context'), { provider, model, budgetTokens: 20_000 });
        expect({ provider, status: r.status }).toEqual({ provider, status: 200 });
        expect({ provider, problems: checkBody(provider, r.body.body, { model }) }).toEqual({
          provider,
          problems: [],
        });
        // The model is asked to continue after the results.
        expect(JSON.stringify(lastItem(provider, r.body.body))).toContain('two');
      }
      // A new prompt cannot follow the results; the assistant continuing can.
      const prompt = await c.post(c.conv(id, '/turns'), { messages: exchange('3') });
      expect(prompt.status).toBe(422);
      expect(prompt.body.violations).toEqual([
        expect.objectContaining({ path: 'body.messages[0].role', code: 'role_order' }),
      ]);
      const t3 = await c.turn(id, undefined, [assistant('both done')]);
      expect(await c.branchIds(id)).toEqual([...t1.messageIds, ...t2.messageIds, t3.tip]);
      await c.turn(id, undefined, exchange('4'));
      // A call left unanswered is refused as always.
      const half = await c.post(c.conv(id, '/turns'), {
        messages: [
          user('do 5'),
          msg('assistant', [toolUse('x_5'), toolUse('y_5')]),
          msg('user', [toolResult('x_5')]),
        ],
      });
      expect(half.status).toBe(422);
      expect(half.body.violations).toEqual([
        expect.objectContaining({ code: 'unanswered_tool_use' }),
      ]);
    });

    it('is a turn end: checkpoint, fork, resume and every export work on it', async () => {
      const id = await c.start();
      const t1 = await c.turn(id, null, exchange('1'));
      const t2 = await c.turn(id, t1.tip, stopped('2'));
      const end = t2.tip;
      // Inside the turn is still no place to hang a turn.
      const mid = await c.post(c.conv(id, '/turns'), {
        parentId: t2.messageIds[1],
        messages: exchange('x'),
      });
      expect(mid.body.code).toBe('not_a_turn_boundary');
      await c.checkpoint(id, 'paused', end);
      const fork = await c.post(c.conv(id, '/forks'), { messageId: end });
      expect(fork.status).toBe(201);
      const copy = fork.body.idMap[end] as string;
      // The fork's copy is a turn end too: the assistant continues there.
      const onFork = await c.post(c.conv(fork.body.id, '/turns'), {
        parentId: copy,
        messages: [assistant('continued on the fork')],
      });
      expect(onFork.status).toBe(201);
      const resume = await c.post(c.conv(id, '/resume'), { keepMessages: 2 });
      expect(resume.status).toBe(200);
      // The cut opens at a prompt, never between a call and its results.
      expect(resume.body.cutAt).toBe(t2.messageIds[0]);
      for (const format of ['jsonl', 'markdown', 'claude-code', 'pi']) {
        const r = await c.get(c.conv(id, `/export?format=${format}&scope=branch`));
        expect({ format, status: r.status }).toEqual({ format, status: 200 });
        expect({ format, hasResults: r.text.includes('two') }).toEqual({
          format,
          hasResults: true,
        });
      }
    });

    it('a draft can hang on it and opens with the assistant', async () => {
      const id = await c.start();
      const t = await c.turn(id, null, stopped('1'));
      const wrong = await c.put(c.conv(id, '/draft'), {
        parentId: t.tip,
        messages: [user('a new prompt')],
      });
      expect(wrong.status).toBe(422);
      const draft = [msg('assistant', [text('one more'), toolUse('z_1')])];
      const saved = await c.put(c.conv(id, '/draft'), { parentId: t.tip, messages: draft });
      expect(saved.status).toBe(200);
      const done = await c.post(c.conv(id, '/draft/commit'), {
        messages: [msg('user', [toolResult('z_1')])],
      });
      expect(done.status).toBe(201);
      expect(done.body.messageIds).toHaveLength(2);
      // That turn ended on tool results too.
      await c.turn(id, undefined, [assistant('finished')]);
    });
  });

  describe('the tip moved to none', () => {
    it('empties the branch, keeps the old path, answers an empty context; the next turn is a new root', async () => {
      const id = await c.start();
      const t1 = await c.turn(id, null, exchange('1'));
      const t2 = await c.turn(id, t1.tip, exchange('2'));
      const before = await c.events(id);
      const moved = await c.put(c.conv(id, '/tip'), { messageId: null, expectedTip: t2.tip });
      expect(moved.status).toBe(200);
      expect(moved.body).toEqual({ tip: null, revision: before.length });
      const events = await c.events(id);
      expect(events.slice(0, before.length)).toEqual(before);
      expect(events.slice(before.length).map((e) => [e.type, e.data])).toEqual([
        ['TipMoved', { from: t2.tip, to: null, reason: 'branch' }],
      ]);
      // Again: nothing new.
      expect((await c.put(c.conv(id, '/tip'), { messageId: null })).body.revision).toBe(
        before.length,
      );
      expect((await c.conversation(id)).tip).toBeNull();
      expect(await c.branchIds(id)).toEqual([]);
      const tree = await c.tree(id);
      expect(tree.tip).toBeNull();
      expect(tree.nodes.map((n) => n.id).sort()).toEqual(
        [...t1.messageIds, ...t2.messageIds].sort(),
      );
      for (const { provider, model } of PROVIDERS) {
        const r = await c.post(c.conv(id, '/context'), { provider, model, budgetTokens: 8_000 });
        expect({ provider, status: r.status, history: lastItem(provider, r.body.body) }).toEqual({
          provider,
          status: 200,
          history: undefined,
        });
      }
      const resume = await c.post(c.conv(id, '/resume'), { keepMessages: 2 });
      expect([resume.status, resume.body.code]).toEqual([422, 'invalid_resume']);
      const branch = await c.get(c.conv(id, '/export?format=jsonl&scope=branch'));
      expect([branch.status, branch.text]).toEqual([200, '']);
      const whole = await c.get(c.conv(id, '/export?format=jsonl&scope=tree'));
      expect(whole.text.trim().split('\n')).toHaveLength(4);
      for (const format of ['markdown', 'claude-code', 'pi']) {
        const r = await c.get(c.conv(id, `/export?format=${format}&scope=tree`));
        expect({ format, status: r.status, all: r.text.includes('answer 2') }).toEqual({
          format,
          status: 200,
          all: true,
        });
      }
      // The next turn (parentId omitted = the tip, none) is a new root.
      const root = await c.turn(id, undefined, exchange('new'));
      expect(await c.branchIds(id)).toEqual(root.messageIds);
      const [first] = await c.branch(id);
      expect(first.parentId).toBeNull();
      // With a tip again, a second root is refused as before.
      const another = await c.post(c.conv(id, '/turns'), {
        parentId: null,
        messages: exchange('x'),
      });
      expect(another.body.violations).toEqual([expect.objectContaining({ code: 'root_exists' })]);
      // The old path is reachable by moving the tip back.
      await c.moveTip(id, t2.tip);
      expect(await c.branchIds(id)).toEqual([...t1.messageIds, ...t2.messageIds]);
    });

    it('refuses a stale expectedTip and an unknown id as before', async () => {
      const id = await c.start();
      const t = await c.turn(id, null, exchange('1'));
      const stale = await c.put(c.conv(id, '/tip'), { messageId: null, expectedTip: 'other' });
      expect([stale.status, stale.body.code]).toEqual([409, 'stale_tip']);
      expect((await c.conversation(id)).tip).toBe(t.tip);
      const missing = await c.put(c.conv(id, '/tip'), { messageId: 'nope' });
      expect([missing.status, missing.body.code]).toEqual([404, 'message_not_found']);
    });
  });
});
