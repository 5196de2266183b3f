/** A stored message as a person reads it: text, images, thinking collapsed, tool calls beside their results. */
import { type Block, type Message } from './api';

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

export const blockPreview = (b: Block): string => {
  switch (b.type) {
    case 'text':
      return oneLine(b.text);
    case 'image':
      return '[image]';
    case 'tool_use':
      return `⚙ ${b.name}(${oneLine(JSON.stringify(b.input) ?? '')})`;
    case 'tool_result':
      return `↳ ${b.is_error ? 'error: ' : ''}${oneLine(typeof b.content === 'string' ? b.content : b.content.map(blockPreview).join(' '))}`;
    case 'thinking':
      return '[thinking]';
    case 'redacted_thinking':
      return '[redacted thinking]';
    default:
      return `[${(b as { type: string }).type}]`;
  }
};

/** One line for a tree row: the first text, else the first block's gist. */
export const preview = (m: Message | undefined, width = 100): string => {
  if (!m) return '';
  const text = m.content.find((b) => b.type === 'text') as { text: string } | undefined;
  const s = text ? oneLine(text.text) : m.content.map(blockPreview).join(' ');
  return s.length > width ? `${s.slice(0, width - 1)}…` : s;
};

const Img = ({ mediaType, data, alt }: { mediaType: string; data: string; alt: string }) => (
  <img class="inline-image" alt={alt} src={`data:${mediaType};base64,${data}`} />
);

const Json = ({ value }: { value: unknown }) => (
  <pre class="json">{JSON.stringify(value, null, 2)}</pre>
);

export const BlockView = ({ block }: { block: Block }) => {
  switch (block.type) {
    case 'text':
      return <div class="text-block">{block.text}</div>;
    case 'image':
      return block.source.type === 'base64' ? (
        <Img mediaType={block.source.media_type} data={block.source.data} alt="image block" />
      ) : (
        <div class="muted">
          image by {block.source.type}:{' '}
          <code>{block.source.type === 'url' ? block.source.url : block.source.file_id}</code>
        </div>
      );
    case 'thinking':
      return (
        <details class="thinking">
          <summary>
            thinking ({block.thinking.length} chars{block.signature ? ', signed' : ''})
          </summary>
          <div class="text-block">{block.thinking}</div>
        </details>
      );
    case 'redacted_thinking':
      return (
        <details class="thinking">
          <summary>redacted thinking ({block.data.length} bytes)</summary>
        </details>
      );
    case 'tool_use':
      return (
        <div class="tool-use">
          <div class="tool-head">
            ⚙ {block.name} <code>{block.id}</code>
          </div>
          <Json value={block.input} />
        </div>
      );
    case 'tool_result':
      return (
        <div class={`tool-result${block.is_error ? ' is-error' : ''}`}>
          <div class="tool-head">
            ↳ result of <code>{block.tool_use_id}</code>
            {block.is_error ? ' (error)' : ''}
          </div>
          {typeof block.content === 'string' ? (
            <div class="text-block">{block.content}</div>
          ) : (
            block.content.map((b, i) => <BlockView key={i} block={b} />)
          )}
        </div>
      );
    default:
      return <Json value={block} />;
  }
};

/**
 * The message's blocks; a tool_use is drawn beside its tool_result (found in `others`, the
 * messages around it), a tool_result beside its call.
 */
export const MessageView = ({ message, others }: { message: Message; others: Message[] }) => {
  const results = new Map<string, Block>();
  const calls = new Map<string, Block>();
  for (const m of [message, ...others])
    for (const b of m.content) {
      if (b.type === 'tool_result') results.set(b.tool_use_id, b);
      if (b.type === 'tool_use') calls.set(b.id, b);
    }
  return (
    <div class={`message role-${message.role}`} data-testid="message-view">
      <div class="message-head">
        <b>{message.role}</b> <code>{message.id}</code>
        {message.model ? <span class="muted"> · {message.model}</span> : null}
        {message.createdAt ? <span class="muted"> · {message.createdAt}</span> : null}
        {message.pinned ? <span class="badge">pinned</span> : null}
      </div>
      {message.content.map((b, i) => {
        if (b.type === 'tool_use') {
          const r = results.get(b.id);
          return (
            <div class="pair" key={i} data-testid="tool-pair">
              <BlockView block={b} />
              {r ? <BlockView block={r} /> : <div class="muted">no result in the tree</div>}
            </div>
          );
        }
        if (b.type === 'tool_result') {
          const c = calls.get(b.tool_use_id);
          return (
            <div class="pair" key={i} data-testid="tool-pair">
              {c ? <BlockView block={c} /> : <div class="muted">call not found</div>}
              <BlockView block={b} />
            </div>
          );
        }
        return <BlockView key={i} block={b} />;
      })}
      {message.usage ? (
        <details>
          <summary>usage</summary>
          <Json value={message.usage} />
        </details>
      ) : null}
    </div>
  );
};

/** Every base64 image anywhere in a provider body (Anthropic, OpenAI and Gemini shapes). */
export const imagesIn = (body: unknown): { mediaType: string; data: string }[] => {
  const out: { mediaType: string; data: string }[] = [];
  const stack: unknown[] = [body];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      const m = /^data:(image\/[a-z+]+);base64,(.+)$/s.exec(v);
      if (m) out.push({ mediaType: m[1], data: m[2] });
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push(v[i]);
    } else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (o.type === 'base64' && typeof o.media_type === 'string' && typeof o.data === 'string') {
        out.push({ mediaType: o.media_type, data: o.data });
        continue;
      }
      if (
        typeof o.mimeType === 'string' &&
        typeof o.data === 'string' &&
        o.mimeType.startsWith('image/')
      ) {
        out.push({ mediaType: o.mimeType, data: o.data });
        continue;
      }
      for (const k of Object.keys(o).reverse()) stack.push(o[k]);
    }
  }
  return out;
};
