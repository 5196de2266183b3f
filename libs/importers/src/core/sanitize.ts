/** The domain's parser is the last gate: a rejected block becomes a text placeholder (noted). */
import {
  type Block,
  type MessageInput,
  parseMessage,
  type TextBlock,
  type ValidationIssue,
} from '@arbor/domain';

export interface Sanitized {
  message: MessageInput | null;
  replaced: string[];
  errors: string[];
}

const PATH = /^message\.content\[(\d+)\](?:\.content\[(\d+)\])?/;

const placeholder = (what: string, issue: ValidationIssue): TextBlock => ({
  type: 'text',
  text: `[${what} not imported: ${issue.message}]`,
});

/** Replaces each rejected block (or block inside a tool result) by a text placeholder. */
const replaceBad = (content: Block[], issues: readonly ValidationIssue[], replaced: string[]) => {
  const out = [...content];
  const done = new Set<string>();
  for (const issue of issues) {
    const m = PATH.exec(issue.path);
    if (m === null) continue;
    const i = Number(m[1]);
    const block = out[i];
    if (block === undefined) continue;
    if (m[2] !== undefined && block.type === 'tool_result' && Array.isArray(block.content)) {
      const j = Number(m[2]);
      const key = `${i}.${j}`;
      if (done.has(key)) continue;
      done.add(key);
      const inner = [...block.content];
      const what = `${inner[j]?.type ?? 'block'} in a tool result`;
      inner[j] = placeholder(what, issue);
      out[i] = { ...block, content: inner };
      replaced.push(`${what} replaced by text (${issue.code})`);
    } else if (block.type !== 'tool_use' && block.type !== 'tool_result' && !done.has(`${i}`)) {
      done.add(`${i}`);
      out[i] = placeholder(block.type, issue);
      replaced.push(`${block.type} block replaced by text (${issue.code})`);
    }
  }
  return out;
};

export const sanitizeMessage = (input: MessageInput, maxImageBytes?: number): Sanitized => {
  const options = maxImageBytes === undefined ? {} : { maxImageBytes };
  const first = parseMessage(input, options);
  if (first.ok) return { message: first.value, replaced: [], errors: [] };
  const replaced: string[] = [];
  const content = replaceBad(input.content, first.errors, replaced);
  const second = parseMessage({ ...input, content }, options);
  if (second.ok) return { message: second.value, replaced, errors: [] };
  return {
    message: null,
    replaced,
    errors: second.errors.map((e) => `${e.path}: ${e.code}`),
  };
};
