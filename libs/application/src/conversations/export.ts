import { type Block, decodedLength, imageSourceLabel, type Message } from '@arbor/domain';

/** JSON Lines: one message per line, as stored (ids, parentId, role, content, metadata). */
export const toJsonl = (messages: readonly Message[]): string =>
  messages.map((m) => JSON.stringify(m)).join('\n') + (messages.length ? '\n' : '');

/**
 * Characters that change how text reads without showing themselves: C0/C1 controls (but tab and
 * newline), DEL, and the bidirectional controls (U+061C, U+200E/F, U+202A–E, U+2066–9), which can
 * make `exe.txt` display as `txt.exe`. In an export they are written as `\u{202E}`, visibly.
 */
const HIDDEN =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const visible = (text: string): string =>
  text.replace(
    HIDDEN,
    (c) => `\\u{${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}}`,
  );

/**
 * A fenced block longer than any backtick run inside: whatever the text holds (a `## assistant`
 * line, `<script>`, a fence of its own) it renders as literal text, never as markdown or HTML.
 */
const fence = (text: string): string => {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((s) => s.length));
  const f = '`'.repeat(longest + 1);
  return `${f}\n${visible(text)}\n${f}`;
};

/** One-line inline code for an id or a name: newlines shown as `\n`, delimiter longer than any run. */
const code = (text: string): string => {
  const line = visible(text.replace(/\r/g, '\\r').replace(/\n/g, '\\n'));
  const longest = Math.max(0, ...(line.match(/`+/g) ?? []).map((s) => s.length));
  const d = '`'.repeat(longest + 1);
  const pad = line.startsWith('`') || line.endsWith('`') ? ' ' : '';
  return `${d}${pad}${line}${pad}${d}`;
};

/** Text on one line with every ASCII punctuation backslash-escaped (CommonMark): a title. */
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

/**
 * A readable transcript of a branch for people. Only the headings (`## role · \`id\``, ids being
 * `[A-Za-z0-9_-]`) are markdown of ours: every text, tool input and output is fenced, ids and
 * names are inline code, the title is escaped, so no content can forge a message or inject HTML.
 */
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

/** The whole transcript at once: the chunks of `markdownChunks`, joined. */
export const toMarkdown = (title: string | null, messages: readonly Message[]): string =>
  Array.from(markdownChunks(title, messages)).join('');
