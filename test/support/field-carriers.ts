/**
 * A request that carries a given value in any one client-writable field (the list derived from
 * the contract by writable-fields.ts). Each template writes a placeholder wherever a free field
 * takes text; which placeholder lands in which field is read back through `markedFields`, so a
 * carrier is never named by hand and a template that misses a field shows up as a field with no
 * carrier.
 */
import { pngHeader } from '@arbor/domain/testing/images';
import { markedFields } from './writable-fields';

/** Placeholders: `M()` is called once per free value, in the same order on every build. */
export type Fill = () => string;

/** A whole turn with `M()` in every free field of every block type (and message extras). */
export const everyBlockTurn = (M: Fill, tool: string) => {
  const png = () =>
    Buffer.concat([pngHeader(2, 2), Buffer.from(`image bytes ${M()}`)]).toString('base64');
  const images = () => [
    {
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: png() },
      clientData: { n: M() },
    },
    { type: 'image', source: { type: 'url', url: `https://example.com/${M()}.png` } },
    { type: 'image', source: { type: 'file', provider: 'anthropic', file_id: M() } },
  ];
  const extras = () => ({ metadata: { n: M() }, clientData: { n: M() } });
  return [
    {
      role: 'user',
      content: [{ type: 'text', text: M(), clientData: { n: M() } }, ...images()],
      ...extras(),
    },
    {
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [
        { type: 'thinking', thinking: M(), signature: M(), clientData: { n: M() } },
        { type: 'redacted_thinking', data: M(), clientData: { n: M() } },
        {
          type: 'reasoning',
          id: M(),
          summary: [{ type: 'summary_text', text: M() }],
          encrypted_content: M(),
          clientData: { n: M() },
        },
        {
          type: 'provider',
          provider: 'openai',
          model: M(),
          item: { type: 'web_search_call', note: M() },
          clientData: { n: M() },
        },
        { type: 'text', text: M(), clientData: { n: M() } },
        { type: 'tool_use', id: `${tool}_a`, name: M(), input: { q: M() }, clientData: { n: M() } },
        { type: 'tool_use', id: `${tool}_b`, name: 'run', input: {} },
      ],
      ...extras(),
    },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: `${tool}_a`,
          name: M(),
          content: M(),
          clientData: { n: M() },
        },
        {
          type: 'tool_result',
          tool_use_id: `${tool}_b`,
          content: [{ type: 'text', text: M(), clientData: { n: M() } }, ...images()],
        },
        ...images(),
      ],
      ...extras(),
    },
    { role: 'assistant', content: [{ type: 'text', text: M() }], ...extras() },
  ];
};

/** Tools in each of the three shapes a context call takes, `M()` in every description. */
export const everyToolShape = (M: Fill) => [
  {
    name: 'neutral',
    description: M(),
    input_schema: { type: 'object', properties: { q: { type: 'string', description: M() } } },
  },
  {
    type: 'function',
    function: {
      name: 'chat',
      description: M(),
      parameters: { type: 'object', properties: { q: { description: M() } } },
    },
  },
  {
    type: 'function',
    name: 'responses',
    description: M(),
    parameters: { type: 'object', properties: { q: { description: M() } } },
  },
];

/** What a carrier's request needs in place before it is sent. */
export type Need = 'draft' | 'branch' | 'decision';

/** The ids a carrier's request names: made by the caller (see `Need`). */
export interface CarrierIds {
  tenantId: string;
  /** A conversation with a turn (its end `tip`, checkpoint `cp` on it). */
  conv: string;
  tip: string;
  /** An id no conversation has yet. */
  fresh: string;
  /** With `branch`: the end of a sibling branch of the tip. */
  side: string;
  /** With `decision`: a compaction decision of `conv`. */
  decision: string;
}

export interface Carried {
  method: string;
  url: string;
  body: unknown;
  as: 'tenant' | 'admin';
}

interface Template {
  needs: Need[];
  build(ids: CarrierIds, M: Fill): Carried;
}

const conv = (ids: CarrierIds, rest = '') => `/v1/conversations/${ids.conv}${rest}`;
const context = (ids: CarrierIds, body: Record<string, unknown>): Carried => ({
  method: 'POST',
  url: conv(ids, '/context'),
  body: { provider: 'anthropic', model: 'claude-sonnet-4-5', budgetTokens: 200_000, ...body },
  as: 'tenant',
});

const TEMPLATES: Template[] = [
  {
    needs: [],
    build: (_ids, M) => ({ method: 'POST', url: '/v1/tenants', body: { name: M() }, as: 'admin' }),
  },
  {
    needs: [],
    build: (ids, M) => ({
      method: 'POST',
      url: `/v1/tenants/${ids.tenantId}/keys`,
      body: { label: M() },
      as: 'admin',
    }),
  },
  {
    needs: [],
    build: (_ids, M) => ({
      method: 'POST',
      url: '/v1/conversations',
      body: { title: M(), metadata: { n: M() } },
      as: 'tenant',
    }),
  },
  {
    needs: [],
    build: (ids, M) => ({
      method: 'PUT',
      url: `/v1/conversations/${ids.fresh}`,
      body: { title: M(), metadata: { n: M() } },
      as: 'tenant',
    }),
  },
  {
    needs: [],
    build: (ids, M) => ({
      method: 'POST',
      url: conv(ids, '/turns'),
      body: { parentId: ids.tip, messages: everyBlockTurn(M, 'toolu') },
      as: 'tenant',
    }),
  },
  {
    needs: [],
    build: (ids, M) => ({
      method: 'PUT',
      url: conv(ids, '/draft'),
      body: { parentId: ids.tip, messages: everyBlockTurn(M, 'tu') },
      as: 'tenant',
    }),
  },
  {
    needs: ['draft'],
    build: (ids, M) => ({
      method: 'POST',
      url: conv(ids, '/draft/commit'),
      body: { messages: everyBlockTurn(M, 'call').slice(1) },
      as: 'tenant',
    }),
  },
  {
    needs: ['branch'],
    build: (ids, M) => ({
      method: 'PUT',
      url: conv(ids, '/tip'),
      body: { messageId: ids.side, summarize: { instruction: M() } },
      as: 'tenant',
    }),
  },
  {
    needs: [],
    build: (ids, M) => ({
      method: 'POST',
      url: conv(ids, '/checkpoints/cp/rewind'),
      body: { digest: M() },
      as: 'tenant',
    }),
  },
  {
    needs: [],
    build: (ids, M) => ({
      method: 'POST',
      url: conv(ids, '/failures'),
      body: { input: { q: M() }, error: { e: M() } },
      as: 'tenant',
    }),
  },
  {
    needs: [],
    build: (ids, M) => ({
      method: 'POST',
      url: conv(ids, '/forks'),
      body: { title: M(), metadata: { n: M() } },
      as: 'tenant',
    }),
  },
  {
    needs: [],
    build: (ids, M) =>
      context(ids, {
        system: M(),
        tools: everyToolShape(M),
        append: everyBlockTurn(M, 'ap').slice(0, 3),
      }),
  },
  {
    needs: [],
    build: (ids, M) =>
      context(ids, {
        overflow: {
          error:
            'Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":' +
            `"prompt is too long: 250000 tokens > 200000 maximum"},"request_id":"${M()}"}`,
        },
      }),
  },
  { needs: [], build: (ids, M) => context(ids, { capabilities: { snapshotShape: M() } }) },
  {
    needs: [],
    build: (_ids, M) => ({
      method: 'PUT',
      url: '/v1/settings/context',
      body: { models: { claude: { snapshotShape: M() } } },
      as: 'tenant',
    }),
  },
  {
    needs: ['decision'],
    build: (ids, M) => ({
      method: 'POST',
      url: conv(ids, `/compactions/${ids.decision}/revoke`),
      body: { reason: M() },
      as: 'tenant',
    }),
  },
  {
    needs: [],
    build: (ids, M) => ({ method: 'DELETE', url: conv(ids), body: { reason: M() }, as: 'tenant' }),
  },
];

const placeholder = (i: number) => `ph${i}q${'z'.repeat(8)}`;
const SAMPLE_IDS: CarrierIds = {
  tenantId: 'tn1',
  conv: 'c1',
  tip: 'm1',
  fresh: 'c2',
  side: 'm2',
  decision: 'd1',
};

export interface Carrier {
  /** The operation the request goes to. */
  operation: string;
  needs: Need[];
  /** The free values the request carries, each with the field it lands in (null: none). */
  slots: (string | null)[];
  /** The request with `fill(i)` as its i-th free value. */
  build(ids: CarrierIds, fill: (i: number) => string): Carried;
}

/** One carrier per template; together their slots cover the fields they write. */
export const carriers = (): Carrier[] =>
  TEMPLATES.map((t) => {
    let n = 0;
    const sample = t.build(SAMPLE_IDS, () => placeholder(n++));
    const slots = Array.from({ length: n }, (_, i) => {
      const [field] = markedFields(sample.method, sample.url, sample.body, placeholder(i));
      return field ?? null;
    });
    const operation = (slots.find((f) => f !== null) ?? '').split(' ')[0];
    return {
      operation,
      needs: t.needs,
      slots,
      build: (ids, fill) => {
        let k = 0;
        return t.build(ids, () => fill(k++));
      },
    };
  });
