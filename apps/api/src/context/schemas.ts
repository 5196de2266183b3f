import { z } from 'zod';
import { JsonObject } from '../validation/json';
import { PROVIDER_NAMES, type ProviderName } from '@arbor/context';
import { CapabilityOverridesSchema, CapabilityQueryFields } from '../settings/schemas';

const PROVIDERS = PROVIDER_NAMES as [ProviderName, ...ProviderName[]];

const Tool = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/),
  description: z.string().max(100_000).optional(),
  input_schema: JsonObject,
});

/** Either the provider's measured numbers, or its raw "too long" error text (parsed). */
const Overflow = z.union([
  z.strictObject({
    measuredTokens: z.number().int().positive(),
    limitTokens: z.number().int().positive(),
  }),
  z.strictObject({ error: z.string().min(1).max(100_000) }),
]);

export const ContextBody = z.strictObject({
  provider: z.enum(PROVIDERS),
  model: z.string().min(1).max(200),
  budgetTokens: z.number().int().min(256).max(10_000_000),
  system: z.string().max(1_000_000).optional(),
  tools: z.array(Tool).max(512).optional(),
  maxTokens: z.number().int().min(1).max(1_000_000).optional(),
  overflow: Overflow.optional(),
  mode: z.enum(['auto', 'shake', 'snapshot', 'compact']).default('auto'),
  capabilities: CapabilityOverridesSchema.optional().describe(
    "This request's capability overrides: field by field over the tenant's context settings " +
      '(`PUT /v1/settings/context`), which are over the default table',
  ),
});

export const ReportQuery = z.strictObject({
  provider: z.enum(PROVIDERS).default('anthropic'),
  model: z.string().min(1).max(200).default('claude-sonnet-4-5'),
  ...CapabilityQueryFields,
});
