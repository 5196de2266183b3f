// Prompt-cache hints, pure: body and view in, hinted body and receipt out (docs/context.md). A
// breakpoint ends the previous context's history: Anthropic looks back only 20 blocks from one.
import type {
  AnthropicBody,
  AnthropicContentBlock,
  AnthropicMessage,
} from '../providers/anthropic';
import type { ProviderName } from '../types';
import type { ViewItem } from './view';

export const ANTHROPIC_MAX_BREAKPOINTS = 4;
/** The smallest prefix providers cache (Anthropic's Sonnet / Opus minimum, OpenAI's). */
export const MIN_CACHED_TOKENS = 1024;

export type CacheBoundary = 'tools_system' | 'decisions' | 'previous' | 'history';

export interface CacheBreakpoint {
  at: CacheBoundary;
  itemIndex: number | null;
  tokens: number;
  path?: string;
}

export interface CacheReceipt {
  enabled: boolean;
  key: string | null;
  breakpoints: CacheBreakpoint[];
  expectedCached: { through: CacheBoundary; tokens: number } | null;
  /**
   * True when this call (a new decision, a revocation) changed bytes the previous context had:
   * the cached prefix ends before `changedAtItem`.
   */
  prefixChanged: boolean;
  changedAtItem: number | null;
}

export interface CachePlanInput {
  provider: ProviderName;
  items: readonly ViewItem[];
  itemTokens: readonly number[];
  fixedTokens: number;
  hasSystemOrTools: boolean;
  previousEnd: number | null;
  /** The last context's end when it differs from `previousEnd`: only the expectation uses it. */
  lastEnd?: number | null;
  changedAt: number | null;
  key: string | null;
}

const decided = (item: ViewItem): boolean => item.kind !== 'source' || item.key.includes('|');

function boundaries(input: CachePlanInput): CacheBreakpoint[] {
  const { items, itemTokens } = input;
  const upTo: number[] = [];
  let sum = input.fixedTokens;
  for (let i = 0; i < items.length; i++) upTo.push((sum += itemTokens[i] ?? 0));
  const out: CacheBreakpoint[] = [];
  if (input.hasSystemOrTools)
    out.push({ at: 'tools_system', itemIndex: null, tokens: input.fixedTokens });
  const last = items.length - 1;
  let lastDecided = -1;
  for (let i = 0; i < last; i++) if (decided(items[i])) lastDecided = i;
  // A placeholder's acknowledgement belongs to it: the boundary is after the pair.
  while (lastDecided >= 0 && items[lastDecided + 1]?.kind === 'ack' && lastDecided + 1 < last)
    lastDecided++;
  const add = (at: CacheBoundary, i: number) => {
    if (i < 0 || i > last || out.some((b) => b.itemIndex === i)) return;
    out.push({ at, itemIndex: i, tokens: upTo[i] });
  };
  if (lastDecided >= 0) add('decisions', lastDecided);
  if (input.previousEnd !== null && input.previousEnd < last) add('previous', input.previousEnd);
  add('history', last);
  return out.sort((a, b) => (a.itemIndex ?? -1) - (b.itemIndex ?? -1));
}

export function planCache(
  input: CachePlanInput,
  locate?: (b: CacheBreakpoint) => string | null,
): CacheReceipt {
  let breakpoints = boundaries(input);
  if (locate !== undefined) {
    breakpoints = breakpoints.flatMap((b) => {
      const path = locate(b);
      return path === null ? [] : [{ ...b, path }];
    });
    // At most four markers: the newest boundaries win (tools and system are cached by any).
    if (breakpoints.length > ANTHROPIC_MAX_BREAKPOINTS) {
      breakpoints = [breakpoints[0], ...breakpoints.slice(-(ANTHROPIC_MAX_BREAKPOINTS - 1))];
    }
  }
  const sentEnd = input.lastEnd ?? input.previousEnd;
  const limit =
    sentEnd === null
      ? -2
      : Math.min(sentEnd, input.changedAt === null ? Infinity : input.changedAt - 1);
  let expected: CacheReceipt['expectedCached'] = null;
  for (const b of breakpoints) {
    const at = b.itemIndex ?? -1;
    if (at <= limit && b.tokens >= MIN_CACHED_TOKENS)
      expected = { through: b.at, tokens: b.tokens };
  }
  // OpenAI and Gemini cache any prefix (OpenAI in 128-token steps): up to the limit itself.
  if (input.provider !== 'anthropic' && limit >= -1) {
    let tokens = input.fixedTokens;
    for (let i = 0; i <= limit; i++) tokens += input.itemTokens[i] ?? 0;
    const through: CacheBoundary =
      limit === sentEnd ? 'previous' : (expected?.through ?? 'tools_system');
    const rounded = input.provider === 'gemini' ? tokens : Math.floor(tokens / 128) * 128;
    expected = rounded >= MIN_CACHED_TOKENS ? { through, tokens: rounded } : null;
  }
  const changed = input.changedAt !== null && sentEnd !== null && input.changedAt <= sentEnd;
  const openai = input.provider === 'openai-chat' || input.provider === 'openai-responses';
  return {
    enabled: true,
    key: openai ? input.key : null,
    breakpoints,
    expectedCached: expected,
    prefixChanged: changed,
    changedAtItem: changed ? input.changedAt : null,
  };
}

const EPHEMERAL = { type: 'ephemeral' } as const;

function markable(message: AnthropicMessage, blocks: number): number {
  for (let j = Math.min(blocks, message.content.length) - 1; j >= 0; j--) {
    const t = message.content[j].type;
    if (t !== 'thinking' && t !== 'redacted_thinking') return j;
  }
  return -1;
}

/** The encoder merges same-role messages, so a boundary can fall inside one body message. */
export function locateAnthropic(
  body: AnthropicBody,
  b: CacheBreakpoint,
  prefixShape: (itemIndex: number) => { messages: number; lastBlocks: number },
): string | null {
  if (b.itemIndex === null) {
    if (typeof body.system === 'string' && body.system.length > 0) return 'system[0]';
    if (body.tools !== undefined && body.tools.length > 0) return `tools[${body.tools.length - 1}]`;
    return null;
  }
  const shape = prefixShape(b.itemIndex);
  const i = shape.messages - 1;
  const message = body.messages[i];
  if (message === undefined) return null;
  const j = markable(message, shape.lastBlocks);
  return j < 0 ? null : `messages[${i}].content[${j}]`;
}

export function applyAnthropicBreakpoints(
  body: AnthropicBody,
  breakpoints: readonly CacheBreakpoint[],
): AnthropicBody {
  const messages = [...body.messages];
  let system = body.system;
  let tools = body.tools;
  for (const { path } of breakpoints) {
    if (path === 'system[0]' && typeof system === 'string') {
      system = [{ type: 'text', text: system, cache_control: EPHEMERAL }];
      continue;
    }
    const tool = path === undefined ? null : /^tools\[(\d+)\]$/.exec(path);
    if (tool !== null && tools !== undefined) {
      const k = Number(tool[1]);
      tools = tools.map((t, n) => (n === k ? { ...t, cache_control: EPHEMERAL } : t));
      continue;
    }
    const at = path === undefined ? null : /^messages\[(\d+)\]\.content\[(\d+)\]$/.exec(path);
    if (at === null) continue;
    const i = Number(at[1]);
    const j = Number(at[2]);
    const content = [...messages[i].content];
    content[j] = { ...content[j], cache_control: EPHEMERAL } as AnthropicContentBlock;
    messages[i] = { ...messages[i], content };
  }
  return {
    ...body,
    ...(system !== undefined ? { system } : {}),
    messages,
    ...(tools !== undefined ? { tools } : {}),
  };
}
