import { encode } from '../providers';
import { sampleConversation } from '../testing/conversation';
import { estimateBodyTokens } from '../tokens/estimate';
import { PROVIDER_NAMES, type ProviderName } from '../types';
import { type MeasureContext, fixedTokens, measureView } from './measure';
import { session } from './testing/builders';
import { createTokenCache } from './token-cache';
import { type ViewItem } from './view';

const MODELS: Record<ProviderName, string> = {
  anthropic: 'claude-sonnet-4-5',
  'openai-chat': 'gpt-4o',
  'openai-responses': 'gpt-4.1',
  gemini: 'gemini-2.5-pro',
};

const ctxFor = (provider: ProviderName, cache = createTokenCache()): MeasureContext => ({
  conversationId: 'c',
  provider,
  model: MODELS[provider],
  cache,
});

const itemsOf = (messages = sampleConversation()): ViewItem[] =>
  messages.map((message, i) => ({
    message,
    key: message.id,
    kind: 'source',
    from: i,
    to: i,
  }));

describe('measureView', () => {
  it('measures each rendered message once, then answers from the cache', () => {
    const ctx = ctxFor('anthropic');
    const items = itemsOf();
    const first = measureView(items, { system: 0, tools: 0 }, ctx);
    const scope = ctx.cache.scope(`c|anthropic|${MODELS.anthropic}`);
    const cached = scope.get('m2');
    expect(cached).toBeDefined();
    scope.set('m2', { ...(cached as NonNullable<typeof cached>), tokens: 1_000_000 });
    const second = measureView(items, { system: 0, tools: 0 }, ctx);
    expect(second.raw - first.raw).toBe(1_000_000 - (cached?.tokens ?? 0));
  });

  it('keys the cache by provider, model and rendering', () => {
    const cache = createTokenCache();
    measureView(itemsOf(), { system: 0, tools: 0 }, ctxFor('anthropic', cache));
    const anthropic = cache.scope(`c|anthropic|${MODELS.anthropic}`);
    const size = anthropic.size;
    expect(size).toBe(itemsOf().length);
    measureView(itemsOf(), { system: 0, tools: 0 }, ctxFor('gemini', cache));
    const gemini = cache.scope(`c|gemini|${MODELS.gemini}`);
    expect(gemini.size).toBe(size);
    const elided = itemsOf().map((i) => ({ ...i, key: `${i.key}|e:x` }));
    measureView(elided, { system: 0, tools: 0 }, ctxFor('gemini', cache));
    expect(gemini.size).toBe(2 * size);
    expect(anthropic.size).toBe(size);
  });

  it('splits the estimate by kind, the sections adding up to the total', () => {
    const m = measureView(itemsOf(), { system: 7, tools: 11 }, ctxFor('anthropic'));
    const s = m.sections;
    expect(s.system).toBeGreaterThan(7); // the history's system message too
    expect(s.tools).toBe(11);
    expect(s.toolResults).toBeGreaterThan(0);
    expect(s.images).toBeGreaterThan(0);
    expect(s.system + s.tools + s.messages + s.toolResults + s.images).toBe(m.raw);
    expect(m.images).toBe(2);
  });

  it.each(PROVIDER_NAMES)(
    'tracks the estimate of the encoded %s body within a few percent',
    (p) => {
      const messages = session({ turns: 3, steps: 4, resultWords: 300, system: true });
      const m = measureView(itemsOf(messages), { system: 0, tools: 0 }, ctxFor(p));
      const body = encode(p, messages, { model: MODELS[p] });
      const reference = estimateBodyTokens(body, { provider: p, model: MODELS[p] });
      expect(m.raw / reference).toBeGreaterThan(0.97);
      expect(m.raw / reference).toBeLessThan(1.1);
    },
  );
});

describe('fixedTokens', () => {
  it('counts the system prompt and tools, and caches them by content', () => {
    const ctx = ctxFor('openai-chat');
    const tools = [{ name: 'read', input_schema: { type: 'object' } }];
    const a = fixedTokens(ctx, 'You are terse.', tools);
    expect(a.system).toBeGreaterThan(0);
    expect(a.tools).toBeGreaterThan(0);
    expect(ctx.cache.numbers.size).toBe(2);
    expect(fixedTokens(ctx, 'You are terse.', tools)).toEqual(a);
    expect(ctx.cache.numbers.size).toBe(2);
    expect(fixedTokens(ctx, undefined, [])).toEqual({ system: 0, tools: 0 });
  });
});
