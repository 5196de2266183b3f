import { checkBody } from '@arbor/context';
import {
  assistant,
  clientFor,
  type Client,
  msg,
  text,
  toolResult,
  toolUse,
  user,
} from './support/api';
import { type Harness, startHarness } from './support/harness';

const bigResult = (i: number) => `line ${i} of tool output that nobody will reread\n`.repeat(300);

/**
 * The messages (or input items) of a body, what the fork point splits, without the Anthropic
 * `cache_control` markers: those say where to write and read the cache (the end of each body's
 * history carries one), they are not part of the cached content.
 */
const historyOf = (provider: string, body: Record<string, unknown>): unknown[] =>
  JSON.parse(
    JSON.stringify(provider === 'openai-responses' ? body.input : body.messages, (k, v: unknown) =>
      k === 'cache_control' ? undefined : v,
    ),
  ) as unknown[];

/**
 * Forks keep the prompt cache: the source's decisions in force on the copied path come along
 * (remapped), and no body names its conversation, so the first context on a fork has the very
 * bytes of the source's last one up to the fork point.
 */
describe('a fork keeps the prompt cache', () => {
  let h: Harness;
  let api: Client;

  const seed = async (): Promise<{ id: string; tips: string[] }> => {
    const id = await api.start({ title: 'fork-cache' });
    let tip = (await api.turn(id, null, [user('The task: keep going.'), assistant('Sure.')])).tip;
    const tips = [tip];
    for (let i = 0; i < 8; i++) {
      tip = (
        await api.turn(id, tip, [
          user(`step ${i}`),
          msg('assistant', [text(`running ${i}`), toolUse(`call_${i}`, 'bash', { i })]),
          msg('user', [toolResult(`call_${i}`, bigResult(i))]),
          assistant(`step ${i} done`),
        ])
      ).tip;
      tips.push(tip);
    }
    return { id, tips };
  };

  beforeAll(async () => {
    h = await startHarness();
    api = clientFor(h, (await h.createTenant('fork-cache')).apiKey);
  });
  afterAll(async () => {
    await h.destroy();
  });

  it.each(['anthropic', 'openai-chat', 'openai-responses'])(
    '%s: the fork at the tip gets the source body byte for byte; a fork mid-way the same prefix',
    async (provider) => {
      const { id: source, tips } = await seed();
      const request = { provider, model: 'm-1', budgetTokens: 8_000, system: 'You are terse.' };
      const last = await api.post(api.conv(source, '/context'), request);
      expect(last.status).toBe(200);
      // (the source really has decisions in force on the path)
      const decided = last.body.receipt.rungs.flatMap(
        (r: { decisionIds: string[] }) => r.decisionIds,
      );
      expect(decided.length).toBeGreaterThan(0);
      const sourceBody = JSON.stringify(last.body.body);
      expect(sourceBody).not.toContain(source);

      const f = await api.post(api.conv(source, '/forks'), { title: 'the fork' });
      expect(f.status).toBe(201);
      const fork = f.body.id as string;
      const onFork = await api.post(api.conv(fork, '/context'), request);
      expect(onFork.status).toBe(200);
      // Nothing new decided on the fork: the carried decisions are in force there.
      expect(onFork.body.receipt.rungs.filter((r: { applied: boolean }) => r.applied)).toEqual([]);
      expect(JSON.stringify(onFork.body.body)).toBe(sourceBody);
      const events = await api.events(fork);
      const forkedFrom = events.find((e) => e.type === 'ForkedFrom')?.data as {
        carriedCompactions: { sourceId: string }[];
      };
      expect(forkedFrom.carriedCompactions.map((c) => c.sourceId).sort()).toEqual(
        [...decided].sort(),
      );

      // A fork at an earlier turn: the history up to the fork point is the same bytes.
      const at = tips[6];
      const g = await api.post(api.conv(source, '/forks'), { messageId: at });
      expect(g.status).toBe(201);
      const mid = await api.post(api.conv(g.body.id as string, '/context'), request);
      expect(mid.status).toBe(200);
      expect(checkBody(provider as 'anthropic', mid.body.body)).toEqual([]);
      const midHistory = historyOf(provider, mid.body.body);
      const sourceHistory = historyOf(provider, last.body.body);
      expect(midHistory.length).toBeLessThan(sourceHistory.length);
      expect(JSON.stringify(midHistory)).toBe(
        JSON.stringify(sourceHistory.slice(0, midHistory.length)),
      );
      // One prompt-cache key for the lineage (hashed: it names no conversation).
      if (provider !== 'anthropic') {
        expect(mid.body.body.prompt_cache_key).toBe(last.body.body.prompt_cache_key);
        expect(String(mid.body.body.prompt_cache_key)).toMatch(/^arbor-[0-9a-f]{40}$/);
      }
      // And the fork's own context reproduces.
      const receipts = await api.contexts(fork);
      const r = await api.get(api.conv(fork, `/contexts/${String(receipts[0].contextId)}`));
      expect(r.body.match).toBe(true);
    },
  );
});
