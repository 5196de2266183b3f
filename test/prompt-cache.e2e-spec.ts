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
const tools = [
  { name: 'bash', description: 'Run a command', input_schema: { type: 'object', properties: {} } },
];
const system = 'You are a careful engineer. '.repeat(200);

type Json = Record<string, unknown>;
interface Breakpoint {
  at: string;
  itemIndex: number | null;
  tokens: number;
  path?: string;
}

/** The body without its `cache_control` markers (they say where to cache, they are not cached). */
const bare = (body: unknown): Json =>
  JSON.parse(
    JSON.stringify(body, (k, v: unknown) => (k === 'cache_control' ? undefined : v)),
  ) as Json;

/** Every `cache_control` path in a body. */
const markers = (body: Json): string[] => {
  const out: string[] = [];
  const walk = (v: unknown, path: string) => {
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}[${i}]`));
    else if (typeof v === 'object' && v !== null) {
      for (const [k, x] of Object.entries(v)) {
        if (k === 'cache_control') out.push(path);
        else walk(x, path === '' ? k : `${path}.${k}`);
      }
    }
  };
  walk(body, '');
  return out;
};

const messageIndex = (path: string): number => Number(/^messages\[(\d+)\]/.exec(path)?.[1]);

/** Prompt caching placed for the user: breakpoints, key, receipt, usage, report. */
describe('prompt caching', () => {
  let h: Harness;
  let api: Client;

  const step = (id: string, tip: string | null, i: number, usage?: Json) =>
    api.turn(id, tip, [
      user(`step ${i}`),
      msg('assistant', [text(`running ${i}`), toolUse(`call_${i}`, 'bash', { i })]),
      msg('user', [toolResult(`call_${i}`, bigResult(i))]),
      { ...assistant(`step ${i} done`), ...(usage !== undefined ? { usage } : {}) },
    ]);

  const seed = async (turns: number): Promise<{ id: string; tip: string }> => {
    const id = await api.start({ title: 'cache' });
    let tip = (await api.turn(id, null, [user('The task.'), assistant('Understood.')])).tip;
    for (let i = 0; i < turns; i++) tip = (await step(id, tip, i)).tip;
    return { id, tip };
  };

  beforeAll(async () => {
    h = await startHarness();
    api = clientFor(h, (await h.createTenant('cache')).apiKey);
  });
  afterAll(async () => {
    await h.destroy();
  });

  it('anthropic: breakpoints at the stable boundaries; consecutive bodies share the prefix up to each', async () => {
    const { id, tip } = await seed(4);
    const request = {
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      budgetTokens: 200_000,
      system,
      tools,
    };
    const first = await api.post(api.conv(id, '/context'), request);
    expect(first.status).toBe(200);
    expect(checkBody('anthropic', first.body.body)).toEqual([]);
    const c1 = first.body.receipt.cache as { breakpoints: Breakpoint[]; expectedCached: unknown };
    expect(c1.breakpoints.map((b) => b.at)).toEqual(['tools_system', 'history']);
    expect(c1.expectedCached).toBeNull(); // nothing handed out before
    const m1 = markers(first.body.body as Json);
    expect(m1).toEqual(c1.breakpoints.map((b) => b.path));
    expect(m1[0]).toBe('system[0]');
    const last1 = (first.body.body as { messages: unknown[] }).messages.length - 1;
    expect(messageIndex(m1[1])).toBe(last1);

    // The next turn: the previous end keeps its marker ('previous'), a new one at the end.
    await step(id, tip, 4);
    const second = await api.post(api.conv(id, '/context'), request);
    expect(second.status).toBe(200);
    const c2 = second.body.receipt.cache as {
      breakpoints: Breakpoint[];
      expectedCached: { through: string; tokens: number };
      prefixChanged: boolean;
    };
    expect(c2.breakpoints.map((b) => b.at)).toEqual(['tools_system', 'previous', 'history']);
    expect(c2.breakpoints.length).toBeLessThanOrEqual(4);
    expect(markers(second.body.body as Json)).toContain(m1[1]);
    expect(c2.expectedCached.through).toBe('previous');
    expect(c2.expectedCached.tokens).toBe(c1.breakpoints[1].tokens);
    expect(c2.prefixChanged).toBe(false);
    // Byte-identical up to each breakpoint of the earlier body.
    const b1 = bare(first.body.body);
    const b2 = bare(second.body.body);
    expect(JSON.stringify(b2.system)).toBe(JSON.stringify(b1.system));
    expect(JSON.stringify(b2.tools)).toBe(JSON.stringify(b1.tools));
    const msgs1 = b1.messages as unknown[];
    expect(JSON.stringify((b2.messages as unknown[]).slice(0, msgs1.length))).toBe(
      JSON.stringify(msgs1),
    );

    // A rung that changes the prefix says so: a smaller budget elides results already sent.
    const small = await api.post(api.conv(id, '/context'), { ...request, budgetTokens: 14_000 });
    expect(small.status).toBe(200);
    const elide = small.body.receipt.rungs.find((r: { rung: string }) => r.rung === 'elide');
    expect(elide).toMatchObject({ applied: true, cachedPrefixChanged: true });
    const c3 = small.body.receipt.cache as {
      breakpoints: Breakpoint[];
      expectedCached: { through: string } | null;
      prefixChanged: boolean;
      changedAtItem: number;
    };
    expect(c3.prefixChanged).toBe(true);
    expect(c3.changedAtItem).toBeGreaterThan(0);
    // Only tools and system are still expected cached; the decisions now have their breakpoint.
    expect(c3.expectedCached?.through).toBe('tools_system');
    expect(c3.breakpoints.map((b) => b.at)).toContain('decisions');
    expect(checkBody('anthropic', small.body.body)).toEqual([]);

    // Every context reproduces byte for byte, markers included.
    for (const receipt of await api.contexts(id)) {
      const r = await api.get(api.conv(id, `/contexts/${String(receipt.contextId)}`));
      expect(r.body.match).toBe(true);
    }
  });

  it('asked twice at the same tip: the same body, and the second expects all of it cached', async () => {
    const { id } = await seed(4);
    for (const provider of ['anthropic', 'openai-chat'] as const) {
      const request = {
        provider,
        model: provider === 'anthropic' ? 'claude-sonnet-4-5' : 'gpt-4o',
        budgetTokens: 200_000,
        system,
        tools,
      };
      const first = await api.post(api.conv(id, '/context'), request);
      const second = await api.post(api.conv(id, '/context'), request);
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(JSON.stringify(second.body.body)).toBe(JSON.stringify(first.body.body));
      const c1 = first.body.receipt.cache as { breakpoints: Breakpoint[] };
      const c2 = second.body.receipt.cache as {
        breakpoints: Breakpoint[];
        expectedCached: { through: string; tokens: number } | null;
        prefixChanged: boolean;
      };
      // The first call just sent this very body: everything through its history end is cached.
      const whole = c1.breakpoints[c1.breakpoints.length - 1];
      expect(whole.at).toBe('history');
      expect(c2.prefixChanged).toBe(false);
      if (provider === 'anthropic') {
        expect(c2.expectedCached).toEqual({ through: 'history', tokens: whole.tokens });
      } else {
        // OpenAI caches in 128-token steps.
        expect(c2.expectedCached?.tokens).toBe(Math.floor(whole.tokens / 128) * 128);
      }
    }
  });

  it('openai: one prompt_cache_key per conversation; cache: false sends no hints at all', async () => {
    const { id } = await seed(2);
    const other = await seed(1);
    for (const provider of ['openai-chat', 'openai-responses']) {
      const request = { provider, model: 'gpt-4.1', budgetTokens: 200_000, system };
      const a = await api.post(api.conv(id, '/context'), request);
      const b = await api.post(api.conv(id, '/context'), request);
      const c = await api.post(api.conv(other.id, '/context'), request);
      expect(a.body.body.prompt_cache_key).toMatch(/^arbor-[0-9a-f]{40}$/);
      expect(b.body.body.prompt_cache_key).toBe(a.body.body.prompt_cache_key);
      expect(c.body.body.prompt_cache_key).not.toBe(a.body.body.prompt_cache_key);
      expect(b.body.receipt.cache.key).toBe(a.body.body.prompt_cache_key);
      expect(JSON.stringify(a.body.body)).not.toContain(id);
      const off = await api.post(api.conv(id, '/context'), { ...request, cache: false });
      expect(off.body.body.prompt_cache_key).toBeUndefined();
      expect(off.body.receipt.cache).toMatchObject({ enabled: false, breakpoints: [] });
    }
    const off = await api.post(api.conv(id, '/context'), {
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      budgetTokens: 200_000,
      system,
      cache: false,
    });
    expect(markers(off.body.body as Json)).toEqual([]);
    expect(typeof off.body.body.system).toBe('string');
    for (const receipt of await api.contexts(id)) {
      const r = await api.get(api.conv(id, `/contexts/${String(receipt.contextId)}`));
      expect(r.body.match).toBe(true);
    }
  });

  it('records the cache reads and writes usage reports, and the report shows the hit rate', async () => {
    const id = await api.start({});
    let tip = (await api.turn(id, null, [user('The task.'), assistant('Understood.')])).tip;
    // Anthropic's terms, then OpenAI Chat Completions' and Responses' as their APIs report them.
    tip = (
      await step(id, tip, 0, {
        input_tokens: 100,
        cache_creation_input_tokens: 900,
        cache_read_input_tokens: 0,
        output_tokens: 10,
      })
    ).tip;
    tip = (
      await step(id, tip, 1, {
        prompt_tokens: 2000,
        completion_tokens: 20,
        prompt_tokens_details: { cached_tokens: 1536 },
      })
    ).tip;
    await step(id, tip, 2, {
      input_tokens: 3000,
      output_tokens: 30,
      input_tokens_details: { cached_tokens: 2560 },
    });
    const branch = await api.branch(id);
    const usages = branch.filter((m) => m.usage !== undefined).map((m) => m.usage);
    expect(usages).toEqual([
      {
        input_tokens: 100,
        cache_creation_input_tokens: 900,
        cache_read_input_tokens: 0,
        output_tokens: 10,
      },
      { input_tokens: 464, output_tokens: 20, cache_read_input_tokens: 1536 },
      { input_tokens: 440, output_tokens: 30, cache_read_input_tokens: 2560 },
    ]);
    const report = await api.get(
      api.conv(id, '/context/report?provider=anthropic&model=claude-sonnet-4-5'),
    );
    expect(report.status).toBe(200);
    expect(report.body.cache).toEqual({
      turns: 3,
      inputTokens: 1000 + 2000 + 3000,
      cacheReadTokens: 1536 + 2560,
      cacheWriteTokens: 900,
      hitRate: Math.round(((1536 + 2560) / 6000) * 10_000) / 10_000,
    });
  });
});
