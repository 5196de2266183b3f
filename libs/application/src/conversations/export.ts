import { type Block, decodedLength, imageSourceLabel, type Message } from '@arbor/domain';

export const toJsonl = (messages: readonly Message[]): string =>
  messages.map((m) => JSON.stringify(m)).join('\n') + (messages.length ? '\n' : '');

// Controls and bidi overrides (which make `exe.txt` read `txt.exe`) are written as `\u{…}`.
const HIDDEN =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const visible = (text: string): string =>
  text.replace(
    HIDDEN,
    (c) => `\\u{${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}}`,
  );

/** Longer than any backtick run inside, so no content renders as markdown or HTML. */
const fence = (text: string): string => {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((s) => s.length));
  const f = '`'.repeat(longest + 1);
  return `${f}\n${visible(text)}\n${f}`;
};

const code = (text: string): string => {
  const line = visible(text.replace(/\r/g, '\\r').replace(/\n/g, '\\n'));
  const longest = Math.max(0, ...(line.match(/`+/g) ?? []).map((s) => s.length));
  const d = '`'.repeat(longest + 1);
  const pad = line.startsWith('`') || line.endsWith('`') ? ' ' : '';
  return `${d}${pad}${line}${pad}${d}`;
};

const plain = (text: string): string =>
  visible(text.replace(/[\r\n]+/g, ' ')).replace(/[!-/:-@[-`{-~]/g, (c) => `\\${c}`);

const blockToMarkdown = (b: Block): string => {
  switch (b.type) {
    case 'text':
      return fence(b.text);
    case 'image':
      return b.source.type === 'base64'
        ? `*[image: ${b.source.media_type}, ${decodedLength(b.source.data)} bytes]*`
        : `*[image: ${plain(imageSourceLabel(b.source))}]*`;
    case 'tool_use':
      return `**tool call** ${code(b.name)} (${code(b.id)})\n\n${fence(JSON.stringify(b.input, null, 2))}`;
    case 'tool_result': {
      const body =
        typeof b.content === 'string'
          ? b.content
          : b.content
              .map((c) => (c.type === 'text' ? c.text : `[image: ${imageSourceLabel(c.source)}]`))
              .join('\n');
      return `**tool result** (${code(b.tool_use_id)})${b.is_error ? ' — error' : ''}\n\n${fence(body)}`;
    }
    case 'thinking':
      return `<details><summary>thinking</summary>\n\n${fence(b.thinking)}\n\n</details>`;
    case 'redacted_thinking':
      return '*[redacted thinking]*';
    case 'reasoning':
      return `<details><summary>reasoning</summary>\n\n${fence(b.summary.map((p) => p.text).join('\n\n'))}\n\n</details>`;
    case 'provider':
      return `*[${plain(b.provider)} ${plain(String(b.item['type']))} block]*`;
  }
};

/** Only our headings are markdown: all content is fenced or code, so none can forge a message. */
export function* markdownChunks(
  title: string | null,
  messages: readonly Message[],
): Generator<string> {
  yield `# ${title === null ? 'Conversation' : plain(title)}\n`;
  for (const m of messages) {
    yield `\n## ${m.role}${m.pinned ? ' (pinned)' : ''} · \`${m.id}\`\n\n`;
    yield `${m.content.map(blockToMarkdown).join('\n\n')}\n`;
  }
}

export const toMarkdown = (title: string | null, messages: readonly Message[]): string =>
  Array.from(markdownChunks(title, messages)).join('');
