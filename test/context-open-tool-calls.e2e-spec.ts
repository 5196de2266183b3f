import { checkBody } from '@arbor/context';
import { clientFor, type Client, toolTurn } from './support/api';
import { type Harness, startHarness } from './support/harness';

/**
 * Found by the model-based test (test/tree-model.e2e-spec.ts): a tip moved onto an assistant
 * message whose tool calls are not answered yet made POST .../context assemble a body every
 * provider refuses and answer 500 internal_error. It now says why, as a 422, and records nothing.
 */
describe('POST .../context with the tip on unanswered tool calls', () => {
  let h: Harness;
  let c: Client;
  beforeAll(async () => {
    h = await startHarness();
    c = clientFor(h, (await h.createTenant('open-calls')).apiKey);
  });
  afterAll(async () => {
    await h.destroy();
  });

  it('answers 422 not_a_turn_boundary, appends nothing; any other tip gets a valid body', async () => {
    const id = await c.start();
    const t = await c.turn(id, null, toolTurn('1'));
    const [prompt, call, results] = t.messageIds;
    await c.moveTip(id, call);
    const before = await c.events(id);
    for (const provider of ['anthropic', 'openai-chat', 'openai-responses', 'gemini']) {
      const r = await c.post(c.conv(id, '/context'), {
        provider,
        model: 'claude-sonnet-4-5',
        budgetTokens: 8_000,
      });
      expect({
        provider,
        status: r.status,
        code: r.body.code,
        messageId: r.body.messageId,
      }).toEqual({ provider, status: 422, code: 'not_a_turn_boundary', messageId: call });
    }
    const report = await c.get(c.conv(id, '/context/report'));
    expect([report.status, report.body.code]).toEqual([422, 'not_a_turn_boundary']);
    expect(await c.events(id)).toEqual(before);
    // The tip on the prompt, on the tool results, or at the end of the turn: a valid body.
    for (const tip of [prompt, results, t.tip]) {
      await c.moveTip(id, tip);
      const r = await c.post(c.conv(id, '/context'), {
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        budgetTokens: 8_000,
      });
      expect(r.status).toBe(200);
      expect(checkBody('anthropic', r.body.body)).toEqual([]);
    }
  });
});
