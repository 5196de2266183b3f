/**
 * The context service keeps the live window of recent calls (libs/application/src/context/live-window.ts)
 * and reads only what changed. Whatever the tip does — stays, moves on, moves back, goes to
 * another branch — each body must be the one a server that never cached anything gives.
 */
import { checkBody } from '@arbor/context';
import { type Client, clientFor, exchange, toolTurn } from './support/api';
import { type Harness, startHarness } from './support/harness';

describe('context live window across tip moves', () => {
  let h: Harness;
  let api: Client;

  beforeAll(async () => {
    h = await startHarness();
    api = clientFor(h, (await h.createTenant('window')).apiKey);
  });
  afterAll(async () => {
    await h.destroy();
  });

  const ask = async (id: string) => {
    const r = await api.post(api.conv(id, '/context'), {
      provider: 'openai-chat',
      model: 'gpt-4o',
      budgetTokens: 200_000,
    });
    expect(r.status).toBe(200);
    expect(checkBody('openai-chat', r.body.body)).toEqual([]);
    return JSON.stringify(r.body.body);
  };

  /** The body this server gives now, and the one a restarted server (no cache) gives. */
  const warmAndCold = async (id: string) => {
    const warm = await ask(id);
    await h.restart();
    api = clientFor(h, api.key);
    return { warm, cold: await ask(id) };
  };

  it('hands out what an uncached server does, whatever the tip did', async () => {
    const id = await api.start({ title: 'window' });
    let tip: string | null = null;
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const t = await api.turn(id, tip, i % 2 === 0 ? toolTurn(`s${i}`) : exchange(`q${i}`));
      ids.push(...t.messageIds);
      tip = t.tip;
    }
    const steps: [string, () => Promise<unknown>][] = [
      ['stays', async () => undefined],
      ['moves on', () => api.turn(id, tip, exchange('later'))],
      ['moves back', () => api.moveTip(id, ids[5])],
      // A new turn off an earlier message: the active branch leaves the cached path.
      ['goes to another branch', () => api.turn(id, ids[3], exchange('elsewhere'))],
      ['comes back to the first branch', () => api.moveTip(id, ids[ids.length - 1])],
    ];
    await ask(id); // warm the cache
    for (const [what, move] of steps) {
      await move();
      const { warm, cold } = await warmAndCold(id);
      expect({ what, body: warm }).toEqual({ what, body: cold });
      await ask(id); // warm again for the next move
    }
    // Back on the first branch, at the end of its sixth turn.
    const last = JSON.parse(await ask(id));
    expect(JSON.stringify(last.messages[last.messages.length - 1])).toContain('answer q5');
  });
});
