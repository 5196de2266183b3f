/** Wire messages, refined with the domain's checks so `parseMessages` accepts the same. */
import { z } from 'zod';
import {
  BLOCK_TYPES,
  BLOCKS_BY_ROLE,
  type BlockType,
  IMAGE_MEDIA_TYPES,
  IMAGE_URL_PATTERN,
  imageDataProblem,
  type ImageMediaType,
  MAX_IMAGE_URL_LENGTH,
  MAX_MESSAGE_DEPTH,
  nestsDeeperThan,
  type Role,
  ROLES,
} from '@arbor/domain';
import { Id, JsonObject, ModelName, Timestamp, ToolCallId } from './common';

export const RoleSchema = z.enum(ROLES as [Role, ...Role[]]).meta({ id: 'Role' });
export const BlockTypeSchema = z.enum(BLOCK_TYPES as [BlockType, ...BlockType[]]);
export const ImageMediaTypeSchema = z.enum(
  IMAGE_MEDIA_TYPES as [ImageMediaType, ...ImageMediaType[]],
);

/** Free JSON kept on a block or message byte for byte and never sent to a model. */
export const ClientData = JsonObject.meta({
  id: 'ClientData',
  description:
    'Free JSON kept byte for byte with the block or message and answered by every read and ' +
    "export (your framework's item ids, status, provider data). Never read by Arbor, never " +
    'sent to a model. Bounded by the JSON depth and size limits.',
  examples: [{ itemId: 'msg_123', status: 'completed' }],
});

const extras = { clientData: ClientData.optional() };

export const TextBlock = z
  .object({ type: z.literal('text'), text: z.string().min(1), ...extras })
  .meta({ id: 'TextBlock', examples: [{ type: 'text', text: 'What is in this file?' }] });

export const Base64ImageSource = z
  .object({
    type: z.literal('base64'),
    media_type: ImageMediaTypeSchema,
    data: z.string().meta({ description: 'Strict base64 of the image bytes (size-capped)' }),
  })
  .superRefine((s, ctx) => {
    const problem = imageDataProblem(s.data, s.media_type, Number.POSITIVE_INFINITY);
    if (problem !== null)
      ctx.addIssue({
        code: 'custom',
        path: [problem.field],
        message: problem.message,
        params: { code: problem.code },
      });
  })
  .meta({ id: 'Base64ImageSource', description: 'The image bytes; every provider takes these' });

export const UrlImageSource = z
  .object({
    type: z.literal('url'),
    url: z
      .string()
      .min(1)
      .max(MAX_IMAGE_URL_LENGTH)
      .regex(IMAGE_URL_PATTERN, 'must be an http(s) URL')
      .meta({ description: 'An http(s) URL the provider fetches' }),
  })
  .meta({
    id: 'UrlImageSource',
    description:
      'An image the provider fetches: sent to anthropic, openai-chat and openai-responses; a ' +
      'context for gemini answers 400 `unsupported_image_source`',
    examples: [{ type: 'url', url: 'https://example.com/diagram.png' }],
  });

export const FileImageSource = z
  .object({
    type: z.literal('file'),
    provider: z.enum(['anthropic', 'openai', 'gemini']).meta({
      description: 'Whose files API issued the id; the id is sent only to that provider',
    }),
    file_id: z.string().min(1).meta({ description: 'The file id (Gemini: the file URI)' }),
    media_type: ImageMediaTypeSchema.optional().meta({ description: 'Required for gemini' }),
  })
  .refine((s) => s.provider !== 'gemini' || s.media_type !== undefined, {
    path: ['media_type'],
    message: 'media_type is required for a gemini file',
  })
  .meta({
    id: 'FileImageSource',
    description:
      "A file in a provider's files API. Sent to that provider (anthropic: `{type:'file'}` " +
      'source, openai-responses: `input_image.file_id`, gemini: `fileData`); any other target, ' +
      'and openai-chat (no image file ids), answers 400 `unsupported_image_source`',
    examples: [{ type: 'file', provider: 'openai', file_id: 'file-abc123' }],
  });

export const ImageSourceSchema = z
  .discriminatedUnion('type', [Base64ImageSource, UrlImageSource, FileImageSource])
  .meta({ id: 'ImageSource' });

export const ImageBlock = z
  .object({ type: z.literal('image'), source: ImageSourceSchema, ...extras })
  .meta({ id: 'ImageBlock' });

export const ToolUseBlock = z
  .object({
    type: z.literal('tool_use'),
    id: ToolCallId,
    name: z.string().min(1),
    input: JsonObject.meta({ description: "The tool's arguments (a JSON object)" }),
    ...extras,
  })
  .meta({
    id: 'ToolUseBlock',
    examples: [{ type: 'tool_use', id: 'call_1', name: 'read_file', input: { path: 'a.ts' } }],
  });

export const ToolResultContentBlock = z
  .discriminatedUnion('type', [TextBlock, ImageBlock])
  .meta({ id: 'ToolResultContentBlock' });

export const ToolResultBlock = z
  .object({
    type: z.literal('tool_result'),
    tool_use_id: ToolCallId,
    name: z
      .string()
      .min(1)
      .optional()
      .meta({
        description:
          "The tool's name; used where the provider names results (gemini `functionResponse.name`, " +
          'when the call is not in the body)',
      }),
    content: z.union([z.string(), z.array(ToolResultContentBlock)]),
    is_error: z.boolean().optional(),
    ...extras,
  })
  .meta({
    id: 'ToolResultBlock',
    description: 'Carried in a user message, after its tool_use',
    examples: [{ type: 'tool_result', tool_use_id: 'call_1', name: 'read_file', content: 'ok' }],
  });

export const ThinkingBlock = z
  .object({ type: z.literal('thinking'), thinking: z.string(), signature: z.string(), ...extras })
  .meta({
    id: 'ThinkingBlock',
    description:
      'Anthropic extended thinking (or a Gemini thought signature), kept byte-exact, signature ' +
      'included; sent only to the provider that made it',
  });

export const RedactedThinkingBlock = z
  .object({ type: z.literal('redacted_thinking'), data: z.string().min(1), ...extras })
  .meta({ id: 'RedactedThinkingBlock', description: 'Kept byte-exact' });

export const ReasoningBlock = z
  .object({
    type: z.literal('reasoning'),
    id: z
      .string()
      .min(1)
      .optional()
      .meta({ description: "OpenAI's reasoning item id (`rs_…`); absent if the source has none" }),
    summary: z.array(z.object({ type: z.literal('summary_text'), text: z.string() })),
    encrypted_content: z.string().min(1).optional(),
    ...extras,
  })
  .meta({
    id: 'ReasoningBlock',
    description:
      'An OpenAI reasoning item, kept byte-exact; sent back only by openai-responses to the ' +
      "model family of its message's `model`; dropped for every other target",
    examples: [
      {
        type: 'reasoning',
        id: 'rs_1',
        summary: [{ type: 'summary_text', text: 'Plan…' }],
        encrypted_content: 'gAAAA…',
      },
    ],
  });

export const ProviderBlock = z
  .object({
    type: z.literal('provider'),
    provider: z.enum(['anthropic', 'openai']),
    model: z.string().min(1).optional().meta({
      description: "The model that produced it (default: the message's `model`)",
    }),
    item: JsonObject.meta({
      description:
        'The block (anthropic) or input item (openai) exactly as the provider returned it, with ' +
        'its `type`',
    }),
    ...extras,
  })
  .refine((b) => typeof b.item.type === 'string' && b.item.type !== '', {
    path: ['item', 'type'],
    message: 'item.type must be a non-empty string',
  })
  .meta({
    id: 'ProviderBlock',
    description:
      'An opaque provider block sent back byte for byte only to its provider and model family ' +
      '(anthropic content block, openai-responses input item), dropped for other targets. One ' +
      'whose `item.type` is `compaction` (Anthropic server-side compaction, OpenAI ' +
      '`/responses/compact`) replaces everything before it: those messages are neither sent ' +
      'nor counted.',
    examples: [
      {
        type: 'provider',
        provider: 'anthropic',
        item: { type: 'compaction', content: 'Summary…' },
      },
      {
        type: 'provider',
        provider: 'openai',
        item: { type: 'compaction', id: 'cmp_1', encrypted_content: 'gAAAA…' },
      },
    ],
  });

export const BlockSchema = z
  .discriminatedUnion('type', [
    TextBlock,
    ImageBlock,
    ToolUseBlock,
    ToolResultBlock,
    ThinkingBlock,
    RedactedThinkingBlock,
    ReasoningBlock,
    ProviderBlock,
  ])
  .meta({
    id: 'Block',
    description:
      'A content block. Unknown block types are refused (400 validation_failed, ' +
      '`unknown_block_type`), never dropped. system: text; user: text, image, tool_result; ' +
      'assistant: text, tool_use, thinking, redacted_thinking, reasoning, provider.',
  });

const Count = z.number().int().min(0).nullable().optional();

/** Usage as measured by the provider for the call that produced an assistant message. */
export const UsageSchema = z
  .object({
    input_tokens: Count,
    output_tokens: Count,
    cache_read_input_tokens: Count,
    cache_creation_input_tokens: Count,
    prompt_tokens: Count.meta({
      description: 'OpenAI Chat Completions: stored as input_tokens minus the cached tokens',
    }),
    completion_tokens: Count.meta({
      description: 'OpenAI Chat Completions: stored as output_tokens',
    }),
    prompt_tokens_details: z
      .object({ cached_tokens: Count })
      .optional()
      .meta({ description: 'OpenAI Chat Completions: cached_tokens → cache_read_input_tokens' }),
    input_tokens_details: z.object({ cached_tokens: Count }).optional().meta({
      description:
        'OpenAI Responses: cached_tokens → cache_read_input_tokens, input_tokens then counted without them',
    }),
  })
  .meta({
    id: 'Usage',
    description:
      'Stored in the neutral (Anthropic) terms: input_tokens are the uncached input, cache reads and writes apart; OpenAI usage is accepted as its APIs report it and converted. ' +
      'What the provider measured for the one call that produced this assistant message (not ' +
      'a running total). The first assistant message committed after a context call answers ' +
      'that context: its input_tokens + cache_read_input_tokens + cache_creation_input_tokens ' +
      "pair with the context's estimate as a calibration sample for the provider. Later " +
      'messages (until the next context call) are stored but not used for calibration.',
  });

/** A message as a client sends it in a turn. */
export const MessageInputSchema = z
  .object({
    id: Id.optional().meta({ description: 'Default: a fresh id' }),
    role: RoleSchema,
    content: z.array(BlockSchema).min(1),
    pinned: z.boolean().optional(),
    model: ModelName.optional(),
    usage: UsageSchema.optional(),
    metadata: JsonObject.optional(),
    clientData: ClientData.optional(),
  })
  .superRefine((m, ctx) => {
    const allowed: readonly string[] = BLOCKS_BY_ROLE[m.role];
    m.content.forEach((block, i) => {
      if (!allowed.includes(block.type))
        ctx.addIssue({
          code: 'custom',
          path: ['content', i, 'type'],
          message: `a ${block.type} block is not allowed in a ${m.role} message`,
        });
    });
    if (nestsDeeperThan(m, MAX_MESSAGE_DEPTH))
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: `a message must nest at most ${MAX_MESSAGE_DEPTH} levels`,
      });
  })
  .meta({ id: 'MessageInput' });

const UsageOut = z
  .object({
    input_tokens: z.number().int().optional(),
    output_tokens: z.number().int().optional(),
    cache_read_input_tokens: z.number().int().optional(),
    cache_creation_input_tokens: z.number().int().optional(),
  })
  .meta({ id: 'MeasuredUsage' });

/** A committed message, as every read answers it (the original bytes, even if compacted). */
export const MessageSchema = z
  .object({
    id: Id,
    parentId: Id.nullable(),
    role: RoleSchema,
    content: z.array(BlockSchema),
    pinned: z.boolean().optional(),
    model: z.string().optional(),
    usage: UsageOut.optional(),
    metadata: JsonObject.optional(),
    clientData: ClientData.optional(),
    turnId: Id.meta({ description: 'The turn that committed it' }),
    createdAt: Timestamp,
  })
  .meta({ id: 'Message' });

/** On the active branch: a message a checkpoint was rewound to carries the digests kept there. */
export const BranchMessageSchema = MessageSchema.extend({
  digests: z
    .array(z.object({ label: z.string(), digest: z.string(), revision: z.number().int().min(0) }))
    .optional()
    .meta({ description: 'The digest kept by each rewind to this message, oldest first' }),
}).meta({ id: 'BranchMessage' });
