// Decisions in force → the messages the request is encoded from; pure, sources never mutated.
// When a range decision applies, and supersession: README.md.
import type {
  CompactionDecision,
  ElidedResult,
  RangeDecision,
  StrippedImage,
} from '@arbor/domain/compaction';
import type { Block, Message, ToolResultContentBlock } from '@arbor/domain/messages';
import {
  ACK_TEXT,
  droppedText,
  elidedResultText,
  snapshotHeaderText,
  strippedImageText,
  scopeFor,
  summaryText,
} from './placeholders';
import type { WindowShape } from './window';

export type { RangeDecision };

export interface AppliedRange {
  decision: RangeDecision;
  from: number;
  to: number;
}

export interface ViewPlan {
  elided: Map<string, Map<string, ElidedResult>>;
  stripped: Map<string, Map<string, StrippedImage>>;
  ranges: AppliedRange[];
  applied: Set<string>;
  legacyParts: Set<ElidedResult | StrippedImage>;
  notApplied: { decisionId: string; reason: string }[];
}

export interface ViewSource {
  conversationId: string;
  messages: readonly Message[];
  indexById: ReadonlyMap<string, number>;
  shape: WindowShape;
  memo?: RenderMemo;
}

/** Reused only for the very same parts after the same message; one memo per conversation. */
export interface RenderMemo {
  get(messageId: string): RenderedEntry | undefined;
  set(messageId: string, entry: RenderedEntry): void;
}

export interface RenderedEntry {
  elided: readonly ElidedResult[];
  stripped: readonly StrippedImage[];
  previousId: string | undefined;
  item: ViewItem;
}

function sameParts<T>(cached: readonly T[], live: ReadonlyMap<string, T> | undefined): boolean {
  if (live === undefined) return cached.length === 0;
  if (live.size !== cached.length) return false;
  let i = 0;
  for (const part of live.values()) if (part !== cached[i++]) return false;
  return true;
}

export interface ViewItem {
  message: Message;
  key: string;
  kind: 'source' | 'snapshot' | 'summary' | 'dropped' | 'ack';
  from: number;
  to: number;
}

export function indexMessages(messages: readonly Message[]): Map<string, number> {
  return new Map(messages.map((m, i) => [m.id, i]));
}

function rangeProblem(
  source: ViewSource,
  d: RangeDecision,
  taken: readonly AppliedRange[],
): string | { from: number; to: number } {
  const ids = d.coveredIds;
  const from = source.indexById.get(ids[0] ?? '');
  if (ids.length === 0 || from === undefined || ids.some((id) => !source.indexById.has(id))) {
    return 'covered messages not in the window';
  }
  if (ids[0] !== d.fromId || ids[ids.length - 1] !== d.toId) return 'inconsistent range ids';
  for (let k = 1; k < ids.length; k++) {
    if (source.indexById.get(ids[k]) !== from + k) return 'covered messages not contiguous';
  }
  const to = from + ids.length - 1;
  const { boundary } = source.shape;
  const keep = d.rung === 'drop' ? source.shape.drop.keep : source.shape.keep;
  if (!boundary[from] || !boundary[to + 1]) return 'range splits a tool call from its result';
  for (let i = from; i <= to; i++) if (keep[i]) return 'range covers a message kept verbatim';
  if (taken.some((r) => r.from <= to && from <= r.to)) return 'superseded by a later range';
  return { from, to };
}

function blockAt(message: Message, path: string): Block | ToolResultContentBlock | undefined {
  const match = /^content\[(\d+)\](?:\.content\[(\d+)\])?$/.exec(path);
  if (!match) return undefined;
  const outer = message.content[Number(match[1])];
  if (match[2] === undefined) return outer;
  if (outer?.type !== 'tool_result' || typeof outer.content === 'string') return undefined;
  return outer.content[Number(match[2])];
}

export function planView(
  source: ViewSource,
  decisions: readonly CompactionDecision[],
  exclude: ReadonlyMap<string, string> = new Map(),
): ViewPlan {
  const plan: ViewPlan = {
    elided: new Map(),
    stripped: new Map(),
    ranges: [],
    applied: new Set(),
    legacyParts: new Set(),
    notApplied: [],
  };
  const skip = (d: CompactionDecision, reason: string) =>
    plan.notApplied.push({ decisionId: d.id, reason });

  for (let k = decisions.length - 1; k >= 0; k--) {
    const d = decisions[k];
    if (d.rung !== 'snapshot' && d.rung !== 'summary' && d.rung !== 'drop') continue;
    const excluded = exclude.get(d.id);
    if (excluded !== undefined) {
      skip(d, excluded);
      continue;
    }
    const r = rangeProblem(source, d, plan.ranges);
    if (typeof r === 'string') skip(d, r);
    else {
      plan.ranges.push({ decision: d, ...r });
      plan.applied.add(d.id);
    }
  }
  plan.ranges.sort((a, b) => a.from - b.from);
  const inRange = (i: number) => plan.ranges.some((r) => r.from <= i && i <= r.to);

  for (const d of decisions) {
    if (d.rung === 'elide') {
      let used = false;
      for (const r of d.results) {
        const i = source.indexById.get(r.messageId);
        if (i === undefined || inRange(i)) continue;
        const found = source.messages[i].content.some(
          (b) => b.type === 'tool_result' && b.tool_use_id === r.toolUseId && b.is_error !== true,
        );
        if (!found) continue;
        const byTool = plan.elided.get(r.messageId) ?? new Map<string, ElidedResult>();
        byTool.set(r.toolUseId, r);
        if (scopeFor(d, '') !== null) plan.legacyParts.add(r);
        plan.elided.set(r.messageId, byTool);
        used = true;
      }
      if (used) plan.applied.add(d.id);
      else skip(d, 'no elided result is in the window');
    } else if (d.rung === 'strip_images') {
      let used = false;
      for (const img of d.images) {
        const i = source.indexById.get(img.messageId);
        if (i === undefined || inRange(i)) continue;
        if (blockAt(source.messages[i], img.path)?.type !== 'image') continue;
        const byPath = plan.stripped.get(img.messageId) ?? new Map<string, StrippedImage>();
        byPath.set(img.path, img);
        if (scopeFor(d, '') !== null) plan.legacyParts.add(img);
        plan.stripped.set(img.messageId, byPath);
        used = true;
      }
      if (used) plan.applied.add(d.id);
      else skip(d, 'no stripped image is in the window');
    }
  }
  return plan;
}

const textBlock = (text: string) => ({ type: 'text' as const, text });

function toolNameFor(source: ViewSource, index: number, toolUseId: string): string | undefined {
  const previous = source.messages[index - 1];
  const call = previous?.content.find((b) => b.type === 'tool_use' && b.id === toolUseId);
  return call?.type === 'tool_use' ? call.name : undefined;
}

function renderSource(source: ViewSource, plan: ViewPlan, index: number): ViewItem {
  const message = source.messages[index];
  const elided = plan.elided.get(message.id);
  const stripped = plan.stripped.get(message.id);
  if (elided === undefined && stripped === undefined) {
    // Message ids never hold ':' or '|', so they cannot collide with the other keys.
    return { message, key: message.id, kind: 'source', from: index, to: index };
  }
  const memo = source.memo;
  const previousId = index > 0 ? source.messages[index - 1].id : undefined;
  const hit = memo?.get(message.id);
  if (
    hit !== undefined &&
    hit.previousId === previousId &&
    sameParts(hit.elided, elided) &&
    sameParts(hit.stripped, stripped)
  ) {
    const { item } = hit;
    return item.from === index ? item : { ...item, from: index, to: index };
  }
  const item = renderChanged(source, message, index, elided, stripped, plan.legacyParts);
  memo?.set(message.id, {
    elided: elided === undefined ? [] : [...elided.values()],
    stripped: stripped === undefined ? [] : [...stripped.values()],
    previousId,
    item,
  });
  return item;
}

function renderChanged(
  source: ViewSource,
  message: Message,
  index: number,
  elided: ReadonlyMap<string, ElidedResult> | undefined,
  stripped: ReadonlyMap<string, StrippedImage> | undefined,
  legacy: ReadonlySet<ElidedResult | StrippedImage>,
): ViewItem {
  const scope = (part: ElidedResult | StrippedImage) =>
    legacy.has(part) ? source.conversationId : null;
  const strip = (path: string, block: Block | ToolResultContentBlock) => {
    const img = stripped?.get(path);
    return img === undefined ? block : textBlock(strippedImageText(scope(img), img));
  };
  const content = message.content.map((block, i): Block => {
    if (block.type === 'tool_result') {
      const e = elided?.get(block.tool_use_id);
      if (e !== undefined) {
        const name = toolNameFor(source, index, block.tool_use_id);
        return {
          type: 'tool_result',
          tool_use_id: block.tool_use_id,
          content: elidedResultText(scope(e), e, name),
        };
      }
      if (stripped === undefined || typeof block.content === 'string') return block;
      return {
        ...block,
        content: block.content.map(
          (inner, j) => strip(`content[${i}].content[${j}]`, inner) as ToolResultContentBlock,
        ),
      };
    }
    return block.type === 'image' ? (strip(`content[${i}]`, block) as Block) : block;
  });
  // A version-2 part renders another text than a version-1 one: its key says which (`!`).
  const mark = (k: string, part: ElidedResult | StrippedImage) => (legacy.has(part) ? k : `${k}!`);
  const keys = (m: ReadonlyMap<string, ElidedResult | StrippedImage>) =>
    [...m]
      .map(([k, part]) => mark(k, part))
      .sort()
      .join(',');
  const e = elided === undefined ? '' : `|e:${keys(elided)}`;
  const s = stripped === undefined ? '' : `|s:${keys(stripped)}`;
  return {
    message: { ...message, content },
    key: `${message.id}${e}${s}`,
    kind: 'source',
    from: index,
    to: index,
  };
}

export function renderSourceMessage(source: ViewSource, plan: ViewPlan, index: number): Message {
  return renderSource(source, plan, index).message;
}

const synthetic = (id: string, role: 'user' | 'assistant', content: Block[]): Message => ({
  id,
  parentId: null,
  role,
  content,
  turnId: '',
  createdAt: '',
});

const BASE64 = new WeakMap<Buffer, string>();

function base64Of(png: Buffer): string {
  let data = BASE64.get(png);
  if (data === undefined) {
    data = png.toString('base64');
    BASE64.set(png, data);
  }
  return data;
}

function renderRange(
  source: ViewSource,
  range: AppliedRange,
  pages: ReadonlyMap<string, readonly Buffer[]>,
): ViewItem {
  const d = range.decision;
  const at = { from: range.from, to: range.to };
  if (d.rung === 'drop') {
    return {
      message: synthetic(d.id, 'user', [textBlock(droppedText(d))]),
      key: `drop:${d.id}`,
      kind: 'dropped',
      ...at,
    };
  }
  if (d.rung === 'summary') {
    const content = [textBlock(summaryText(scopeFor(d, source.conversationId), d))];
    return {
      message: synthetic(d.id, 'user', content),
      key: `sum:${d.id}`,
      kind: 'summary',
      ...at,
    };
  }
  const images = pages.get(d.id);
  if (images === undefined) throw new Error(`no pages for snapshot ${d.id}`);
  const content: Block[] = [
    textBlock(snapshotHeaderText(scopeFor(d, source.conversationId), d, images.length)),
    ...images.map((png): Block => ({
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: base64Of(png) },
    })),
  ];
  return {
    message: synthetic(d.id, 'user', content),
    key: `snap:${d.id}:${d.sourceHash}:${images.length}`,
    kind: 'snapshot',
    ...at,
  };
}

function userFollows(source: ViewSource, plan: ViewPlan, index: number): boolean {
  for (let j = index + 1; j < source.messages.length; j++) {
    if (plan.ranges.some((r) => r.from === j)) return true;
    const role = source.messages[j].role;
    if (role !== 'system') return role === 'user';
  }
  return false;
}

export function renderView(
  source: ViewSource,
  plan: ViewPlan,
  pages: ReadonlyMap<string, readonly Buffer[]> = new Map(),
): ViewItem[] {
  const items: ViewItem[] = [];
  let r = 0;
  for (let i = 0; i < source.messages.length; i++) {
    const range = plan.ranges[r];
    if (range !== undefined && range.from === i) {
      items.push(renderRange(source, range, pages));
      if (userFollows(source, plan, range.to)) {
        items.push({
          message: synthetic(`${range.decision.id}:ack`, 'assistant', [textBlock(ACK_TEXT)]),
          key: 'ack:',
          kind: 'ack',
          from: range.from,
          to: range.to,
        });
      }
      i = range.to;
      r++;
      continue;
    }
    items.push(renderSource(source, plan, i));
  }
  return items;
}
