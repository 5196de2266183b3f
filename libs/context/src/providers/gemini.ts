// Gemini generateContent (README.md). Tools use `parametersJsonSchema`: `parameters` takes only
// an OpenAPI subset.
import type { Content, GenerationConfig, Tool } from '@google/genai';
import type { Block, Message, ThinkingBlock, ToolResultBlock } from '@arbor/domain/messages';
import type { EncodeOptions, JsonSchema } from '../types';
import {
  EMPTY_TOOL_OUTPUT,
  asJsonObject,
  collectSystem,
  inCallOrder,
  isBlankText,
  isUsableText,
  originOf,
  toolNamesById,
  toolResultImages,
  toolResultText,
  flatMapped,
  imageSourceProblem,
  UnsupportedImageSourceError,
} from './shared';

export interface GeminiTextPart {
  text: string;
  thought?: boolean;
  thoughtSignature?: string;
}
export interface GeminiInlineDataPart {
  inlineData: { mimeType: string; data: string };
}
export interface GeminiFunctionCallPart {
  functionCall: { id?: string; name: string; args: Record<string, unknown> };
  thoughtSignature?: string;
}
export interface GeminiFunctionResponsePart {
  functionResponse: { id?: string; name: string; response: Record<string, unknown> };
}
export interface GeminiFileDataPart {
  fileData: { mimeType: string; fileUri: string };
}
export type GeminiPart =
  | GeminiTextPart
  | GeminiInlineDataPart
  | GeminiFileDataPart
  | GeminiFunctionCallPart
  | GeminiFunctionResponsePart;

export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}
export interface GeminiFunctionDeclaration {
  name: string;
  description?: string;
  parametersJsonSchema: JsonSchema;
}
export interface GeminiBody {
  contents: GeminiContent[];
  systemInstruction?: { parts: { text: string }[] };
  tools?: { functionDeclarations: GeminiFunctionDeclaration[] }[];
  generationConfig?: { maxOutputTokens?: number };
}

export interface GeminiEncodeOptions extends EncodeOptions {
  thoughtSignatureFallback?: boolean;
  /** Default true; off for endpoints without call ids (calls then match by name and order). */
  callIds?: boolean;
}

/** Gemini's documented signature for function calls it did not produce itself. */
export const GEMINI_PLACEHOLDER_SIGNATURE = 'skip_thought_signature_validator';

export function requiresThoughtSignatures(model: string): boolean {
  return /(^|\/)gemini-3/i.test(model);
}

function imagePart(block: Block): GeminiPart[] {
  if (block.type !== 'image') return [];
  const source = block.source;
  if (source.type === 'base64')
    return [{ inlineData: { mimeType: source.media_type, data: source.data } }];
  if (source.type === 'file' && source.provider === 'gemini' && source.media_type !== undefined)
    return [{ fileData: { mimeType: source.media_type, fileUri: source.file_id } }];
  throw new UnsupportedImageSourceError(
    'gemini',
    '',
    'source',
    source.type,
    imageSourceProblem(source, 'gemini') ?? 'gemini cannot take this image source',
  );
}

function userPart(block: Block): GeminiPart[] {
  if (isUsableText(block)) return [{ text: block.text }];
  return imagePart(block);
}

function functionResponse(result: ToolResultBlock, names: Map<string, string>): GeminiPart {
  const raw = toolResultText(result);
  const text = isBlankText(raw) ? EMPTY_TOOL_OUTPUT : raw;
  return {
    functionResponse: {
      id: result.tool_use_id,
      // The call's name; else the result's own (its call not in the body); else the id.
      name: names.get(result.tool_use_id) ?? result.name ?? result.tool_use_id,
      response: result.is_error ? { error: text } : { output: text },
    },
  };
}

function encodeUser(
  message: Message,
  previous: Message | undefined,
  names: Map<string, string>,
): GeminiPart[] {
  const results = inCallOrder(
    message.content.filter((b): b is ToolResultBlock => b.type === 'tool_result'),
    previous,
  );
  const images = flatMapped(results, (r): GeminiPart[] => {
    const blocks = toolResultImages(r);
    if (blocks.length === 0) return [];
    return [
      { text: `Image output of tool call ${r.tool_use_id}:` },
      ...flatMapped(blocks, imagePart),
    ];
  });
  return [
    ...results.map((r) => functionResponse(r, names)),
    ...images,
    ...flatMapped(message.content, userPart),
  ];
}

function modelPart(block: Block): GeminiTextPart | GeminiFunctionCallPart | null {
  if (isUsableText(block)) return { text: block.text };
  if (block.type === 'tool_use') {
    return { functionCall: { id: block.id, name: block.name, args: asJsonObject(block.input) } };
  }
  return null;
}

function encodeModel(message: Message): GeminiPart[] {
  const keepSignatures = originOf(message) === 'gemini';
  const parts: GeminiPart[] = [];
  let pending: ThinkingBlock | undefined;
  const flushThought = () => {
    if (pending)
      parts.push({ text: pending.thinking, thought: true, thoughtSignature: pending.signature });
    pending = undefined;
  };
  for (const block of message.content) {
    if (block.type === 'thinking') {
      if (!keepSignatures || block.signature === '') continue;
      flushThought();
      pending = block;
      continue;
    }
    const part = modelPart(block);
    if (!part) continue;
    if (pending) part.thoughtSignature = pending.signature;
    pending = undefined;
    parts.push(part);
  }
  flushThought();
  return parts;
}

function signFirstCalls(contents: GeminiContent[]): void {
  for (const content of contents) {
    if (content.role !== 'model') continue;
    const first = content.parts.find((p): p is GeminiFunctionCallPart => 'functionCall' in p);
    if (first && first.thoughtSignature === undefined) {
      first.thoughtSignature = GEMINI_PLACEHOLDER_SIGNATURE;
    }
  }
}

function stripCallIds(contents: GeminiContent[]): void {
  for (const part of contents.flatMap((c) => c.parts)) {
    if ('functionCall' in part) delete part.functionCall.id;
    if ('functionResponse' in part) delete part.functionResponse.id;
  }
}

export function encodeGeminiContents(
  messages: readonly Message[],
  options: { signatureFallback: boolean; callIds: boolean },
): GeminiContent[] {
  const names = toolNamesById(messages);
  const contents: GeminiContent[] = [];
  let previous: Message | undefined;
  for (const message of messages) {
    if (message.role === 'system') continue;
    const role = message.role === 'user' ? 'user' : 'model';
    const parts =
      message.role === 'user' ? encodeUser(message, previous, names) : encodeModel(message);
    previous = message;
    if (parts.length === 0) continue;
    const last = contents[contents.length - 1];
    if (last && last.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  }
  if (options.signatureFallback) signFirstCalls(contents);
  if (!options.callIds) stripCallIds(contents);
  return contents;
}

export function encodeGemini(
  messages: readonly Message[],
  options: GeminiEncodeOptions,
): GeminiBody {
  const system = collectSystem(options.system, messages);
  const declarations = (options.tools ?? []).map((t): GeminiFunctionDeclaration => ({
    name: t.name,
    ...(t.description !== undefined ? { description: t.description } : {}),
    parametersJsonSchema: t.input_schema,
  }));
  const signatureFallback =
    options.thoughtSignatureFallback ?? requiresThoughtSignatures(options.model);
  return {
    contents: encodeGeminiContents(messages, {
      signatureFallback,
      callIds: options.callIds ?? true,
    }),
    ...(system.length > 0
      ? { systemInstruction: { parts: system.map((text) => ({ text })) } }
      : {}),
    ...(declarations.length > 0 ? { tools: [{ functionDeclarations: declarations }] } : {}),
    ...(options.maxTokens !== undefined
      ? { generationConfig: { maxOutputTokens: options.maxTokens } }
      : {}),
  } satisfies SdkGenerateContentBody;
}

interface SdkGenerateContentBody {
  contents: Content[];
  systemInstruction?: Content;
  tools?: Tool[];
  generationConfig?: GenerationConfig;
}
