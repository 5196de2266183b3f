import { LRUCache } from 'lru-cache';
import { type Block, type Message } from '@arbor/domain';

/** Live windows cached by tip: messages are immutable, so a window is reused, cut or extended. */
export interface CachedWindow {
  readonly from: number;
  readonly tip: string | null;
  readonly messages: readonly Message[];
  readonly bytes: number;
}

export type ReadBranch = (fromDepth: number) => Message[] | Promise<Message[]>;

export const DEFAULT_LIVE_WINDOW_BYTES = 64 * 1024 * 1024;

export function messageBytes(message: Message): number {
  let bytes = 256;
  const block = (b: Block): number => {
    switch (b.type) {
      case 'text':
        return b.text.length;
      case 'image':
        return b.source.type === 'base64' ? b.source.data.length : 256;
      case 'tool_use':
        return b.id.length + b.name.length + (JSON.stringify(b.input)?.length ?? 0);
      case 'tool_result':
        return (
          b.tool_use_id.length +
          (typeof b.content === 'string'
            ? b.content.length
            : b.content.reduce(
                (n, part) =>
                  n +
                  64 +
                  (part.type === 'text'
                    ? part.text.length
                    : part.source.type === 'base64'
                      ? part.source.data.length
                      : 256),
                0,
              ))
        );
      case 'thinking':
        return b.thinking.length + b.signature.length;
      case 'redacted_thinking':
        return b.data.length;
      case 'reasoning':
        return (
          (b.id?.length ?? 0) +
          (b.encrypted_content?.length ?? 0) +
          JSON.stringify(b.summary).length
        );
      case 'provider':
        return JSON.stringify(b.item).length;
    }
  };
  for (const b of message.content) bytes += 64 + block(b);
  return bytes;
}

export class LiveWindowCache {
  private readonly windows: LRUCache<string, CachedWindow>;

  constructor(maxBytes = DEFAULT_LIVE_WINDOW_BYTES) {
    this.windows = new LRUCache({
      maxSize: maxBytes,
      sizeCalculation: (w) => Math.max(1, w.bytes),
    });
  }

  get bytes(): number {
    return this.windows.calculatedSize;
  }

  /** Ends at `tip` only when the read model has reached it; the caller checks. */
  async window(
    key: string,
    from: number,
    tip: string | null,
    read: ReadBranch,
  ): Promise<readonly Message[]> {
    const cached = this.windows.get(key);
    const reused =
      cached !== undefined && cached.from === from ? await this.reuse(cached, tip, read) : null;
    const next = reused ?? (await this.fresh(from, tip, read));
    // Kept only when complete: a read model behind the tip must not pass for that tip's window.
    const last = next.messages[next.messages.length - 1]?.id ?? null;
    if (last === tip) this.windows.set(key, next);
    else this.windows.delete(key);
    return next.messages;
  }

  private async reuse(
    cached: CachedWindow,
    tip: string | null,
    read: ReadBranch,
  ): Promise<CachedWindow | null> {
    if (cached.tip === tip) return cached;
    const at = tip === null ? -1 : cached.messages.findIndex((m) => m.id === tip);
    if (at >= 0) {
      const messages = cached.messages.slice(0, at + 1);
      return { from: cached.from, tip, messages, bytes: sumBytes(messages) };
    }
    if (cached.tip === null) return null;
    const more = await read(cached.from + cached.messages.length);
    if (more.length === 0 || more[0].parentId !== cached.tip) return null;
    return {
      from: cached.from,
      tip,
      messages: [...cached.messages, ...more],
      bytes: cached.bytes + sumBytes(more),
    };
  }

  private async fresh(from: number, tip: string | null, read: ReadBranch): Promise<CachedWindow> {
    const messages = await read(from);
    return { from, tip, messages, bytes: sumBytes(messages) };
  }
}

function sumBytes(messages: readonly Message[]): number {
  let n = 0;
  for (const m of messages) n += messageBytes(m);
  return n;
}
