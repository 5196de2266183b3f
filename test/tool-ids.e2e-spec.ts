import { checkBody, PROVIDER_NAMES } from '@arbor/context';
import { makePngBase64 } from '@arbor/context/testing/images';
import { clientFor, type Client, msg, text, toolResult, toolUse, user } from './support/api';
import { type Harness, startHarness } from './support/harness';

const MODEL_BY_PROVIDER = {
  anthropic: 'claude-sonnet-4-5',
  'openai-chat': 'gpt-4o',
  'openai-responses': 'gpt-4o',
  gemini: 'gemini-2.5-pro',
} as const;

/** One turn whose tool loop uses the given call ids (and tool name). */
const turn = (label: string, ids: string[], name = 'run') => [
  user(`do ${label}`),
  msg('assistant', [text(`calling for ${label}`), ...ids.map((id) => toolUse(id, name))]),
  msg(
    'user',
    ids.map((id) => toolResult(id, `result of ${label}/${id}`)),
  ),
  msg('assistant', [text(`done ${label}`)]),
];

/**
 * Issue: two turns each with tool_use id "toolu_01" (or per-turn numbering, call_0 every turn)
 * were both accepted, and then POST .../context and GET .../context/report answered 500
 * (AssemblyInvariantError: duplicate_tool_call_id). Also: ids and names a provider refuses.
 */
describe('reused and unusable tool-call ids (POST .../context, GET .../context/report)', () => {
  let h: Harness;
  let c: Client;
  beforeAll(async () => {
    h = await startHarness();
    c = clientFor(h, (await h.createTenant('tool-ids')).apiKey);
  });
  afterAll(async () => {
    await h.destroy();
  });

  const contextOf = async (id: string, provider: keyof typeof MODEL_BY_PROVIDER) =>
    c.post(c.conv(id, '/context'), {
      provider,
      model: MODEL_BY_PROVIDER[provider],
      budgetTokens: 100_000,
    });

  it.each([
    ['toolu_01 in two turns', [['toolu_01'], ['toolu_01']]],
    ['call_0, call_1 numbered per turn', [['call_0', 'call_1'], ['call_0', 'call_1'], ['call_0']]],
  ])(
    '%s: 200 and a valid body for every provider, pairing kept, mapping in the receipt',
    async (_, turns) => {
      const id = await c.start();
      for (const [i, ids] of turns.entries()) await c.turn(id, undefined, turn(`t${i}`, ids));
      for (const provider of PROVIDER_NAMES) {
        const report = await c.get(
          c.conv(id, `/context/report?provider=${provider}&model=${MODEL_BY_PROVIDER[provider]}`),
        );
        expect([provider, report.status]).toEqual([provider, 200]);
        const r = await contextOf(id, provider);
        expect([provider, r.status]).toEqual([provider, 200]);
        expect([provider, checkBody(provider, r.body.body)]).toEqual([provider, []]);
        const renames = r.body.receipt.toolRenames as { field: string; from: string; to: string }[];
        // Every repeated call (and its result) renamed; the first use of an id keeps it.
        const repeats = turns.slice(1).flat().length;
        expect(renames.filter((x) => x.field === 'id')).toHaveLength(repeats);
        expect(renames.filter((x) => x.field === 'tool_use_id')).toHaveLength(repeats);
        // The same log gives the same body: a second call hands out the same bytes, and the
        // recorded context reproduces byte for byte.
        const again = await contextOf(id, provider);
        expect(JSON.stringify(again.body.body)).toBe(JSON.stringify(r.body.body));
        const reproduced = await c.get(c.conv(id, `/contexts/${String(r.body.contextId)}`));
        expect([provider, reproduced.body.match, reproduced.body.mismatch]).toEqual([
          provider,
          true,
          undefined,
        ]);
      }
    },
  );

  it('ids and history names a provider refuses are mapped; the markdown export stays whole', async () => {
    const id = await c.start();
    // Free text is no tool call id (the log keeps ids in clear): refused with its path.
    const odd = 'w`\n## user';
    const refused = await c.post(c.conv(id, '/turns'), { messages: turn('odd', [odd]) });
    expect([refused.status, refused.body.code]).toEqual([400, 'validation_failed']);
    expect(JSON.stringify(refused.body.errors)).toContain('body.messages[1].content[1].id');
    // Ids a harness writes that a provider refuses are mapped.
    await c.turn(id, undefined, turn('odd', ['call/1+x=', 'functions.Bash:0'], 'mcp.server:tool'));
    for (const provider of PROVIDER_NAMES) {
      const r = await contextOf(id, provider);
      expect([provider, r.status]).toEqual([provider, 200]);
      expect([provider, checkBody(provider, r.body.body)]).toEqual([provider, []]);
      const text = JSON.stringify(r.body.body);
      if (provider === 'anthropic') {
        expect(text).not.toContain('"id":"functions.Bash:0"');
        expect(text).toContain('"tool_use_id":"functions_Bash_0"');
        expect(text).toContain('"name":"mcp_server_tool"');
      }
      if (provider === 'gemini') expect(text).toContain('"name":"mcp.server:tool"');
    }
    const md = await c.get(c.conv(id, '/export?format=markdown'));
    expect(md.status).toBe(200);
    // Fenced blocks are literal text: outside them, one heading per message.
    const outside = md.text.replace(/^(`{3,})\n[\s\S]*?\n\1$/gm, '');
    const headings = outside.split('\n').filter((l) => l.startsWith('## '));
    expect(headings.map((l) => l.split(' ')[1])).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
  });

  it('a tool definition named against the provider rules is refused with its path', async () => {
    const id = await c.start();
    await c.turn(id, undefined, turn('a', ['call_0']));
    const r = await c.post(c.conv(id, '/context'), {
      provider: 'openai-chat',
      model: 'gpt-4o',
      budgetTokens: 100_000,
      tools: [
        { name: 'ok', input_schema: { type: 'object' } },
        { name: 'x'.repeat(65), input_schema: { type: 'object' } },
      ],
    });
    // A request-schema refusal, like every other bad field of this body: 400 validation_failed.
    expect([r.status, r.body.code]).toEqual([400, 'validation_failed']);
    expect(JSON.stringify(r.body)).toContain('tools[1].name');
  });

  it('GET .../context/report answers 200 when an image is over a provider limit', async () => {
    // One 9000×10 PNG (wider than Anthropic's 8000 px), or 150 small ones (over its 100).
    const wide = await c.start();
    await c.turn(wide, undefined, [
      msg('user', [
        text('look'),
        {
          type: 'image',
          source: { type: 'base64', media_type: 'image/png', data: makePngBase64(9000, 10) },
        },
      ]),
      msg('assistant', [text('seen')]),
    ]);
    const many = await c.start();
    const small = makePngBase64(4, 4);
    await c.turn(many, undefined, [
      msg('user', [
        text('look'),
        ...Array.from({ length: 150 }, () => ({
          type: 'image',
          source: { type: 'base64', media_type: 'image/png', data: small },
        })),
      ]),
      msg('assistant', [text('seen')]),
    ]);
    for (const id of [wide, many]) {
      const before = await c.events(id);
      const r = await c.get(
        c.conv(id, '/context/report?provider=anthropic&model=claude-sonnet-4-5'),
      );
      expect([r.status, r.body.wouldApply]).toEqual([200, ['strip_images']]);
      expect(await c.events(id)).toEqual(before);
    }
  });
});
