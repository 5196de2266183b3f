/**
 * The provider-neutral message model on the wire: messages shaped like Anthropic content blocks.
 * Input schemas (`*Input`) describe what a client sends and strip unknown fields (as the domain
 * parser does, e.g. `cache_control`); the output shapes are what Arbor answers (closed). The
 * domain parser (`parseMessages` in @arbor/domain) then checks what JSON Schema cannot: strict
 * base64, the image's real type and size, which blocks each role may carry.
 */
import { z } from 'zod';
import {
  BLOCK_TYPES,
  type BlockType,
  IMAGE_MEDIA_TYPES,
  type ImageMediaType,
  type Role,
  ROLES,
} from '@arbor/domain';
import { Id, JsonObject, Timestamp } from './common';

export const RoleSchema = z.enum(ROLES as [Role, ...Role[]]).meta({ id: 'Role' });
export const BlockTypeSchema = z.enum(BLOCK_TYPES as [BlockType, ...BlockType[]]);
export const ImageMediaTypeSchema = z.enum(
  IMAGE_MEDIA_TYPES as [ImageMediaType, ...ImageMediaType[]],
);

export const TextBlock = z
  .object({ type: z.literal('text'), text: z.string().min(1) })
  .meta({ id: 'TextBlock' });

export const ImageBlock = z
  .object({
    type: z.literal('image'),
    source: z.object({
      type: z.literal('base64'),
      media_type: ImageMediaTypeSchema,
      data: z.string().meta({ description: 'Strict base64 of the image bytes (size-capped)' }),
    }),
  })
  .meta({ id: 'ImageBlock' });

export const ToolUseBlock = z
  .object({
    type: z.literal('tool_use'),
    id: z.string().min(1),
    name: z.string().min(1),
    input: JsonObject.meta({ description: "The tool's arguments (a JSON object)" }),
  })
  .meta({ id: 'ToolUseBlock' });

export const ToolResultContentBlock = z
  .discriminatedUnion('type', [TextBlock, ImageBlock])
  .meta({ id: 'ToolResultContentBlock' });

export const ToolResultBlock = z
  .object({
    type: z.literal('tool_result'),
    tool_use_id: z.string().min(1),
    content: z.union([z.string(), z.array(ToolResultContentBlock)]),
    is_error: z.boolean().optional(),
  })
  .meta({ id: 'ToolResultBlock', description: 'Carried in a user message, after its tool_use' });

export const ThinkingBlock = z
  .object({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() })
  .meta({ id: 'ThinkingBlock', description: 'Kept byte-exact, signature included' });

export const RedactedThinkingBlock = z
  .object({ type: z.literal('redacted_thinking'), data: z.string().min(1) })
  .meta({ id: 'RedactedThinkingBlock', description: 'Kept byte-exact' });

export const BlockSchema = z
  .discriminatedUnion('type', [
    TextBlock,
    ImageBlock,
    ToolUseBlock,
    ToolResultBlock,
    ThinkingBlock,
    RedactedThinkingBlock,
  ])
  .meta({
    id: 'Block',
    description:
      'A content block. Unknown block types are refused (400 validation_failed, ' +
      '`unknown_block_type`), never dropped. system: text; user: text, image, tool_result; ' +
      'assistant: text, tool_use, thinking, redacted_thinking.',
  });

const Count = z.number().int().min(0).nullable().optional();

/** Usage as measured by the provider for the call that produced an assistant message. */
export const UsageSchema = z
  .object({
    input_tokens: Count,
    output_tokens: Count,
    cache_read_input_tokens: Count,
    cache_creation_input_tokens: Count,
  })
  .meta({
    id: 'Usage',
    description:
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
    model: z.string().min(1).optional(),
    usage: UsageSchema.optional(),
    metadata: JsonObject.optional(),
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
