/** Gemini generateContent rules checked on the body we send (README.md). */
import { requiresThoughtSignatures } from '../providers/gemini';
import type { GeminiBody, GeminiContent, GeminiPart } from '../providers/gemini';
import { isBlankText } from '../providers/shared';
import { type ImageRef, checkImages, checkRequestSize } from './images';
import { type ProviderLimits, resolveLimits } from './limits';
import { type Violation, violation } from './violations';

export interface GeminiCheckOptions {
  limits?: Partial<ProviderLimits>;
  /** The model the body is for (it is not in the body: it is in the URL). */
  model?: string;
  requireThoughtSignatures?: boolean;
}

interface CallKey {
  id?: string;
  name: string;
}

function calls(content: GeminiContent | undefined): CallKey[] {
  const out: CallKey[] = [];
  if (content?.role !== 'model') return out;
  for (const p of content.parts) {
    if ('functionCall' in p) out.push({ id: p.functionCall.id, name: p.functionCall.name });
  }
  return out;
}

function responses(content: GeminiContent | undefined): CallKey[] {
  const out: CallKey[] = [];
  if (content?.role !== 'user') return out;
  for (const p of content.parts) {
    if ('functionResponse' in p) {
      out.push({ id: p.functionResponse.id, name: p.functionResponse.name });
    }
  }
  return out;
}

function take(pool: CallKey[], key: CallKey): boolean {
  const index = pool.findIndex((c) =>
    c.id !== undefined && key.id !== undefined ? c.id === key.id : c.name === key.name,
  );
  if (index === -1) return false;
  pool.splice(index, 1);
  return true;
}

const label = (k: CallKey) => (k.id !== undefined ? `${k.name} (${k.id})` : k.name);

const isBlankPart = (part: GeminiPart): boolean =>
  'text' in part && isBlankText(part.text) && part.thoughtSignature === undefined;

function checkPairing(contents: readonly GeminiContent[]): Violation[] {
  const out: Violation[] = [];
  contents.forEach((content, i) => {
    if (content.role === 'model') {
      let open: CallKey[] | undefined;
      content.parts.forEach((part, j) => {
        if (
          'functionCall' in part &&
          !take((open ??= responses(contents[i + 1])), part.functionCall)
        ) {
          out.push(
            violation(
              'unanswered_tool_call',
              `contents[${i}].parts[${j}]`,
              `function call ${label(part.functionCall)} has no response in the next user turn`,
            ),
          );
        }
      });
      return;
    }
    let open: CallKey[] | undefined;
    content.parts.forEach((part, j) => {
      if (!('functionResponse' in part)) return;
      const path = () => `contents[${i}].parts[${j}]`;
      if (i === 0) {
        out.push(
          violation(
            'leading_orphan',
            path(),
            `history starts with the response of ${label(part.functionResponse)}`,
          ),
        );
      } else if (!take((open ??= calls(contents[i - 1])), part.functionResponse)) {
        out.push(
          violation(
            'orphan_tool_result',
            path(),
            `function response ${label(part.functionResponse)} answers no call of the previous model turn`,
          ),
        );
      }
    });
  });
  return out;
}

function checkSignatures(contents: readonly GeminiContent[]): Violation[] {
  return contents.flatMap((content, i) => {
    if (content.role !== 'model') return [];
    const j = content.parts.findIndex((p) => 'functionCall' in p);
    const part = content.parts[j];
    return part && 'functionCall' in part && !part.thoughtSignature
      ? [
          violation(
            'thinking_signature_missing',
            `contents[${i}].parts[${j}]`,
            'the first function call of a model turn needs a thoughtSignature on Gemini 3',
          ),
        ]
      : [];
  });
}

function images(body: GeminiBody): ImageRef[] {
  const refs: ImageRef[] = [];
  const { contents } = body;
  for (let i = 0; i < contents.length; i++) {
    const parts = contents[i].parts;
    for (let j = 0; j < parts.length; j++) {
      const part = parts[j];
      if ('inlineData' in part) {
        refs.push({ path: `contents[${i}].parts[${j}]`, base64: part.inlineData.data });
      }
    }
  }
  return refs;
}

export function checkGemini(body: GeminiBody, options: GeminiCheckOptions = {}): Violation[] {
  const limits = resolveLimits('gemini', options.limits, options.model);
  const { contents } = body;
  if (contents.length === 0) return [violation('no_messages', 'contents', 'no content to send')];
  const out: Violation[] = [];
  if (contents[0].role !== 'user') {
    out.push(violation('first_not_user', 'contents[0]', 'the first content must be from the user'));
  }
  contents.forEach((content, i) => {
    const path = `contents[${i}]`;
    if (i > 0 && contents[i - 1].role === content.role) {
      out.push(violation('role_alternation', path, `two ${content.role} turns in a row`));
    }
    if (content.parts.length === 0)
      out.push(violation('empty_message', path, 'content has no parts'));
    content.parts.forEach((part, j) => {
      if (isBlankPart(part)) {
        out.push(violation('empty_content', `${path}.parts[${j}]`, 'text part is empty or blank'));
      }
    });
  });
  const signatures =
    options.requireThoughtSignatures ??
    (options.model !== undefined && requiresThoughtSignatures(options.model));
  return [
    ...out,
    ...checkPairing(contents),
    ...(signatures ? checkSignatures(contents) : []),
    ...checkImages(images(body), limits),
    ...checkRequestSize(body, limits),
  ];
}
