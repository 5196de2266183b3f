import { type Block, decodedLength, type Message } from '@arbor/domain';

/** JSON Lines: one message per line, as stored (ids, parentId, role, content, metadata). */
export const toJsonl = (messages: readonly Message[]): string =>
  messages.map((m) => JSON.stringify(m)).join('\n') + (messages.length ? '\n' : '');

const fence = (text: string): string => {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((s) => s.length));
  const f = '`'.repeat(longest + 1);
  return `${f}\n${text}\n${f}`;
};

const blockToMarkdown = (b: Block): string => {
  switch (b.type) {
    case 'text':
      return b.text;
    case 'image':
      return `*[image: ${b.source.media_type}, ${decodedLength(b.source.data)} bytes]*`;
    case 'tool_use':
      return `**tool call** \`${b.name}\` (\`${b.id}\`)\n\n${fence(JSON.stringify(b.input, null, 2))}`;
    case 'tool_result': {
      const body =
        typeof b.content === 'string'
          ? b.content
          : b.content
              .map((c) => (c.type === 'text' ? c.text : `[image: ${c.source.media_type}]`))
              .join('\n');
      return `**tool result** (\`${b.tool_use_id}\`)${b.is_error ? ' — error' : ''}\n\n${fence(body)}`;
    }
    case 'thinking':
      return `<details><summary>thinking</summary>\n\n${b.thinking}\n\n</details>`;
    case 'redacted_thinking':
      return '*[redacted thinking]*';
  }
};

/** A readable transcript of a branch for people. */
export const toMarkdown = (title: string | null, messages: readonly Message[]): string => {
  const parts = [`# ${title ?? 'Conversation'}`, ''];
  for (const m of messages) {
    parts.push(`## ${m.role}${m.pinned ? ' (pinned)' : ''} · \`${m.id}\``, '');
    parts.push(m.content.map(blockToMarkdown).join('\n\n'), '');
  }
  return parts.join('\n');
};
