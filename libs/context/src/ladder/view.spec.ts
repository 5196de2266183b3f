import type {
  CompactionDecision,
  ElisionDecision,
  ImageStripDecision,
  SnapshotDecision,
  SummaryDecision,
} from '@arbor/domain/compaction';
import type { Message } from '@arbor/domain/messages';
import { encode } from '../providers';
import { chain, png, text } from '../testing/conversation';
import { PROVIDER_NAMES } from '../types';
import { checkBody } from '../validity';
import { fakePage } from './testing/fake-pages';
import { createRenderMemos } from './token-cache';
import { type RenderMemo, type ViewSource, indexMessages, planView, renderView } from './view';
import { analyzeWindow } from './window';

const base = {
  trigger: 'threshold' as const,
  provider: 'anthropic',
  model: 'claude-sonnet-4-5',
  tokensBefore: 0,
  tokensAfter: 0,
  cachedPrefixChanged: false,
};

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

// 0 user(task) 1 asst(call a) 2 user(result a + image) 3 asst 4 user 5 asst(call b, call c)
// 6 user(results b, c(error)) 7 asst 8 user(prompt + image) 9 asst
const messages: Message[] = deepFreeze(
  chain([
    { role: 'user', content: [text('the task')] },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'read', input: {} }] },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'a', content: [text('big output'), png(30, 20)] },
      ],
    },
    { role: 'assistant', content: [text('read it')] },
    { role: 'user', content: [text('more')] },
    {
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 'b', name: 'grep', input: {} },
        { type: 'tool_use', id: 'c', name: 'ls', input: {} },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'b', content: 'matches' },
        { type: 'tool_result', tool_use_id: 'c', content: 'ENOENT', is_error: true },
      ],
    },
    { role: 'assistant', content: [text('found')] },
    { role: 'user', content: [text('look'), png(12, 10)] },
    { role: 'assistant', content: [text('a cat')] },
  ]),
);
const snapshot = JSON.stringify(messages);

const source: ViewSource = {
  conversationId: 'conv1',
  messages,
  indexById: indexMessages(messages),
  shape: analyzeWindow(messages),
};

const elision = (results: ElisionDecision['results'], id = 'e1'): ElisionDecision => ({
  ...base,
  id,
  rung: 'elide',
  results,
});
const strip = (images: ImageStripDecision['images'], id = 's1'): ImageStripDecision => ({
  ...base,
  id,
  rung: 'strip_images',
  images,
});
const range = (ids: string[]) => ({
  fromId: ids[0],
  toId: ids[ids.length - 1],
  coveredIds: ids,
});
const snap = (ids: string[], id = 'p1'): SnapshotDecision => ({
  ...base,
  id,
  rung: 'snapshot',
  ...range(ids),
  shape: 'claude',
  pageCount: 2,
  sourceChars: 100,
  sourceHash: 'h',
});
const summary = (ids: string[], id = 'y1'): SummaryDecision => ({
  ...base,
  id,
  rung: 'summary',
  ...range(ids),
  summary: 'They read a file and found matches.',
  summarizerModel: 'claude-haiku',
  windows: 1,
});
const pages = new Map([['p1', [fakePage(1092, 1092, 'one'), fakePage(1092, 1092, 'two')]]]);

function render(decisions: CompactionDecision[]) {
  const plan = planView(source, decisions);
  return { plan, items: renderView(source, plan, pages) };
}

function expectValidEverywhere(items: { message: Message }[]) {
  for (const provider of PROVIDER_NAMES) {
    const model = provider === 'anthropic' ? 'claude-sonnet-4-5' : 'gpt-4o';
    const body = encode(
      provider,
      items.map((i) => i.message),
      { model },
    );
    expect(checkBody(provider, body as never, { model })).toEqual([]);
  }
}

afterAll(() => {
  // Nothing above may have changed a source message.
  expect(JSON.stringify(messages)).toBe(snapshot);
});

describe('planView / renderView', () => {
  it('renders the source itself when nothing is in force', () => {
    const { items } = render([]);
    expect(items.map((i) => i.message)).toEqual(messages);
    expect(items[3].message).toBe(messages[3]);
  });

  it('elides a tool result into a placeholder that keeps its pairing and says where it is', () => {
    const { items, plan } = render([
      elision([{ messageId: 'm3', toolUseId: 'a', originalTokens: 1234 }]),
    ]);
    expect(plan.applied.has('e1')).toBe(true);
    const block = items[2].message.content[0];
    expect(block.type).toBe('tool_result');
    if (block.type !== 'tool_result') return;
    expect(block.tool_use_id).toBe('a');
    expect(block.content).toContain('GET /v1/conversations/conv1/messages/m3');
    expect(block.content).toContain('~1234 tokens');
    expect(block.content).toContain('read');
    expect(items[2].key).toBe('m3|e:a');
    expectValidEverywhere(items);
  });

  it('renders version-2 placeholders naming no conversation and no message; version 1 keeps its URL', () => {
    const results = [{ messageId: 'm3', toolUseId: 'a', originalTokens: 1234 }];
    const v2 = render([{ ...elision(results), placeholders: 2 }]);
    const block = v2.items[2].message.content[0];
    if (block.type !== 'tool_result') throw new Error('not a tool result');
    expect(block.content).toBe(
      "[elided: result of read, ~1234 tokens, to save context. The conversation's log keeps the original.]",
    );
    // Another key than version 1's: the two renderings are never mixed up in the caches.
    expect(v2.items[2].key).toBe('m3|e:a!');
    const v1 = render([elision(results)]).items[2].message.content[0];
    expect(JSON.stringify(v1)).toContain('/v1/conversations/conv1/messages/m3');
  });

  it('never elides an error result, nor a result that is not there', () => {
    const { items, plan } = render([
      elision([
        { messageId: 'm7', toolUseId: 'c', originalTokens: 9 },
        { messageId: 'gone', toolUseId: 'z', originalTokens: 9 },
      ]),
    ]);
    expect(items[6].message).toBe(messages[6]);
    expect(plan.applied.has('e1')).toBe(false);
    expect(plan.notApplied).toEqual([{ decisionId: 'e1', reason: expect.any(String) }]);
  });

  it('strips images into a short text placeholder, the text around them staying', () => {
    const { items } = render([
      strip([
        {
          messageId: 'm3',
          path: 'content[0].content[1]',
          mediaType: 'image/png',
          bytes: 2048,
          width: 30,
          height: 20,
        },
        {
          messageId: 'm9',
          path: 'content[1]',
          mediaType: 'image/png',
          bytes: 100,
          width: 12,
          height: 10,
        },
      ]),
    ]);
    const result = items[2].message.content[0];
    if (result.type !== 'tool_result' || typeof result.content === 'string') throw new Error();
    expect(result.content[0]).toEqual(text('big output'));
    expect(result.content[1]).toEqual({
      type: 'text',
      text: expect.stringMatching(/image removed.*image\/png, 2 KB, 30×20 px.*messages\/m3/),
    });
    expect(items[8].message.content[0]).toEqual(text('look'));
    expect(items[8].message.content[1].type).toBe('text');
    expect(items[8].message.content.some((b) => b.type === 'image')).toBe(false);
    expectValidEverywhere(items);
  });

  it('skips a strip whose path holds no image', () => {
    const { plan } = render([
      strip([
        {
          messageId: 'm9',
          path: 'content[0]',
          mediaType: 'image/png',
          bytes: 1,
          width: 1,
          height: 1,
        },
      ]),
    ]);
    expect(plan.applied.size).toBe(0);
  });

  it('replaces a snapshot range by a header, its pages, and an acknowledgement', () => {
    const { items } = render([snap(['m2', 'm3', 'm4'])]);
    expect(items.map((i) => i.kind)).toEqual([
      'source',
      'snapshot',
      'ack',
      'source',
      'source',
      'source',
      'source',
      'source',
      'source',
    ]);
    const message = items[1].message;
    expect(message.role).toBe('user');
    expect(message.content[0]).toEqual({
      type: 'text',
      text: expect.stringMatching(/3 messages \(m2 … m4\).*2 page images/),
    });
    expect(message.content.slice(1).map((b) => b.type)).toEqual(['image', 'image']);
    expect(items[2].message.role).toBe('assistant');
    expectValidEverywhere(items);
  });

  it('needs no acknowledgement when an assistant message follows the range', () => {
    // m5 is a prompt; covering m2..m5 leaves m6 (an assistant tool call) next.
    const { items } = render([summary(['m2', 'm3', 'm4', 'm5'])]);
    expect(items.map((i) => i.kind)).toEqual([
      'source',
      'summary',
      'source',
      'source',
      'source',
      'source',
      'source',
    ]);
    expect(items[1].message.content[0]).toEqual({
      type: 'text',
      text: expect.stringContaining('They read a file and found matches.'),
    });
    expectValidEverywhere(items);
  });

  it.each([
    ['missing', ['m2', 'nope'], 'not in the window'],
    ['not contiguous', ['m2', 'm4'], 'not contiguous'],
    ['splitting a call from its result', ['m2'], 'splits a tool call'],
    ['covering the head', ['m1', 'm2', 'm3', 'm4'], 'kept verbatim'],
    ['covering the current prompt', ['m8', 'm9', 'm10'], 'kept verbatim'],
  ])('does not apply a range %s', (_name, ids, reason) => {
    const { items, plan } = render([summary(ids)]);
    expect(items.map((i) => i.message)).toEqual(messages);
    expect(plan.notApplied).toEqual([
      { decisionId: 'y1', reason: expect.stringContaining(reason) },
    ]);
  });

  it('lets a newer range supersede an older one it overlaps', () => {
    const { items, plan } = render([
      snap(['m2', 'm3', 'm4']),
      summary(['m2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8']),
    ]);
    expect(plan.applied).toEqual(new Set(['y1']));
    expect(plan.notApplied).toEqual([{ decisionId: 'p1', reason: 'superseded by a later range' }]);
    expect(items.map((i) => i.kind)).toEqual(['source', 'summary', 'ack', 'source', 'source']);
  });

  it('does not elide inside an applied range', () => {
    const { plan } = render([
      elision([{ messageId: 'm3', toolUseId: 'a', originalTokens: 5 }]),
      snap(['m2', 'm3', 'm4']),
    ]);
    expect(plan.applied).toEqual(new Set(['p1']));
  });

  it('renders the same bytes for the same decisions', () => {
    const decisions = [
      elision([{ messageId: 'm7', toolUseId: 'b', originalTokens: 50 }]),
      snap(['m2', 'm3', 'm4']),
    ];
    expect(JSON.stringify(render(decisions).items)).toBe(JSON.stringify(render(decisions).items));
  });
});

describe('render memo', () => {
  const withMemo = (memo: RenderMemo, over: Partial<ViewSource> = {}): ViewSource => ({
    ...source,
    memo,
    ...over,
  });
  const decisions = (): CompactionDecision[] => [
    elision([{ messageId: messages[2].id, toolUseId: 'a', originalTokens: 500 }]),
    strip([
      {
        messageId: messages[8].id,
        path: 'content[1]',
        mediaType: 'image/png',
        bytes: 100,
        width: 12,
        height: 10,
      },
    ]),
  ];
  const renderWith = (src: ViewSource, ds: CompactionDecision[]) =>
    renderView(src, planView(src, ds), pages);

  it('renders exactly what no memo renders, and reuses the items for the same decision parts', () => {
    const memo = createRenderMemos(100)('conv1');
    const ds = decisions();
    const plain = renderWith(source, ds);
    const first = renderWith(withMemo(memo), ds);
    const again = renderWith(withMemo(memo), ds);
    expect(first).toEqual(plain);
    expect(again).toEqual(plain);
    expect(again[2]).toBe(first[2]);
    expect(again[8]).toBe(first[8]);
    expect(JSON.stringify(first[2].message)).toContain('[elided: result of read, ~500 tokens');
  });

  it('renders again when the decision parts are other objects, or other parts', () => {
    const memo = createRenderMemos(100)('conv1');
    const first = renderWith(withMemo(memo), decisions());
    const clone = renderWith(withMemo(memo), decisions());
    expect(clone).toEqual(first);
    expect(clone[2]).not.toBe(first[2]);
    const other = renderWith(withMemo(memo), [
      elision([{ messageId: messages[2].id, toolUseId: 'a', originalTokens: 900 }]),
    ]);
    expect(JSON.stringify(other[2].message)).toContain('~900 tokens');
    expect(other[8]).toEqual(renderWith(source, [])[8]);
  });

  it('renders again when the message before it is not the same (a window cut after the call)', () => {
    const memo = createRenderMemos(100)('conv1');
    const ds = decisions();
    const whole = renderWith(withMemo(memo), ds);
    const tail = messages.slice(2);
    const cut = withMemo(memo, {
      messages: tail,
      indexById: indexMessages(tail),
      shape: analyzeWindow(tail),
    });
    const plain = renderWith({ ...cut, memo: undefined }, ds);
    const rendered = renderWith(cut, ds);
    expect(rendered).toEqual(plain);
    // Its call is not in the window any more: the placeholder no longer names the tool.
    expect(JSON.stringify(rendered[0].message)).toContain('[elided: tool result,');
    expect(JSON.stringify(whole[2].message)).toContain('[elided: result of read,');
    // Cut one message earlier, the call is still right before it: the same rendering, moved.
    const shifted = messages.slice(1);
    const fresh = createRenderMemos(100)('conv1');
    const full = renderWith(withMemo(fresh), ds);
    const later = withMemo(fresh, {
      messages: shifted,
      indexById: indexMessages(shifted),
      shape: analyzeWindow(shifted),
    });
    const moved = renderWith(later, ds);
    expect(moved).toEqual(renderWith({ ...later, memo: undefined }, ds));
    expect(moved[1].message).toBe(full[2].message);
    expect(moved[1]).toMatchObject({ from: 1, to: 1 });
  });

  it('keeps conversations apart, and forgets everything rather than pass its bound', () => {
    const memos = createRenderMemos(3);
    const one = memos('one');
    const two = memos('two');
    const entry = (id: string) => ({
      elided: [],
      stripped: [],
      previousId: undefined,
      item: { message: messages[0], key: id, kind: 'source' as const, from: 0, to: 0 },
    });
    one.set('m', entry('one-m'));
    expect(two.get('m')).toBeUndefined();
    two.set('m', entry('two-m'));
    one.set('n', entry('one-n'));
    expect([one.get('m')?.item.key, two.get('m')?.item.key]).toEqual(['one-m', 'two-m']);
    one.set('m', entry('one-m2')); // a replacement is no new entry
    expect(one.get('n')?.item.key).toBe('one-n');
    two.set('x', entry('two-x')); // the fourth: all forgotten, then kept
    expect([one.get('m'), one.get('n'), two.get('m')]).toEqual([undefined, undefined, undefined]);
    expect(two.get('x')?.item.key).toBe('two-x');
  });
});
