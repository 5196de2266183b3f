import { z } from 'zod';
import {
  type CapabilityOverrides,
  type CapabilityTable,
  isSnapshotShapeName,
  SNAPSHOT_SHAPES,
} from '@arbor/context';
import { Problem } from '../problem/problem';

const TOKENS = z.number().int().min(0).max(10_000_000);
const COUNT = z.number().int().min(0).max(1000);

/**
 * The capability fields a tenant (or one request) may set for a model. `snapshotShape` is a page
 * shape id (checked against `SNAPSHOT_SHAPES` after parsing, so an unknown one answers its own
 * `unknown_snapshot_shape` code) or null for no snapshots.
 */
export const CapabilityOverridesSchema = z.strictObject({
  vision: z.boolean().optional().describe('The model reads images; false skips the snapshot rung'),
  snapshotShape: z
    .string()
    .min(1)
    .max(64)
    .nullable()
    .optional()
    .describe(
      `Snapshot page shape: one of ${Object.keys(SNAPSHOT_SHAPES).join(', ')}; null = none`,
    ),
  protectTokens: TOKENS.optional().describe('Elision never touches the newest this-many tokens'),
  minElisionSavings: TOKENS.optional().describe('Elision acts only when it saves this many tokens'),
  keepImages: COUNT.optional().describe('Image stripping keeps this many most recent images'),
  maxSnapshotPages: COUNT.optional().describe('At most this many snapshot pages in one request'),
});

/** Lowercase model-name prefixes (the default table's are lowercase too). */
const Prefix = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._:@+-]{0,199}$/,
    'a model-name prefix: 1-200 characters of [A-Za-z0-9._:@+-], starting with a letter or digit',
  );

export const ContextSettingsBody = z.strictObject({
  models: z
    .record(Prefix, CapabilityOverridesSchema)
    .refine((m) => Object.keys(m).length <= 256, 'at most 256 model prefixes')
    .describe(
      'Capability overrides by model-name prefix (case-insensitive); the longest prefix matching ' +
        'the model wins, one rule per model, fields it leaves out keep the default table',
    ),
});

/** Refuses a shape id the renderer does not have, naming where it was and what exists. */
export const checkShapes = (overrides: CapabilityOverrides | undefined, path: string): void => {
  const shape = overrides?.snapshotShape;
  if (typeof shape === 'string' && !isSnapshotShapeName(shape)) {
    throw new Problem(
      'unknown_snapshot_shape',
      `${path}.snapshotShape: "${shape}" is not a snapshot page shape; known: ${Object.keys(SNAPSHOT_SHAPES).join(', ')}`,
      { path: `${path}.snapshotShape`, shape, known: Object.keys(SNAPSHOT_SHAPES) },
    );
  }
};

/** The table as stored: prefixes lowercased (two spellings of one prefix are refused). */
export const normalizeTable = (models: Record<string, CapabilityOverrides>): CapabilityTable => {
  const out: Record<string, CapabilityOverrides> = {};
  for (const [prefix, overrides] of Object.entries(models)) {
    checkShapes(overrides, `body.models.${prefix}`);
    const key = prefix.toLowerCase();
    if (Object.prototype.hasOwnProperty.call(out, key)) {
      throw new Problem(
        'validation_failed',
        `body.models: "${prefix}" repeats the prefix "${key}"`,
        {
          errors: [
            {
              path: `body.models.${prefix}`,
              code: 'duplicate_prefix',
              message: `repeats "${key}"`,
            },
          ],
        },
      );
    }
    out[key] = overrides;
  }
  return out;
};

const Bool = z.enum(['true', 'false']).transform((v) => v === 'true');
const QueryInt = (schema: z.ZodNumber) =>
  z
    .string()
    .regex(/^\d{1,8}$/, 'a non-negative integer')
    .transform(Number)
    .pipe(schema);

/**
 * The same overrides as query parameters (for `GET …/context/report`): `vision=true|false`,
 * `snapshotShape=<id>|none`, and the integer knobs.
 */
export const CapabilityQueryFields = {
  vision: Bool.optional(),
  snapshotShape: z
    .string()
    .min(1)
    .max(64)
    .transform((v) => (v === 'none' ? null : v))
    .optional(),
  protectTokens: QueryInt(TOKENS).optional(),
  minElisionSavings: QueryInt(TOKENS).optional(),
  keepImages: QueryInt(COUNT).optional(),
  maxSnapshotPages: QueryInt(COUNT).optional(),
};

/** The query's capability fields as overrides (only those given). */
export const overridesFromQuery = (q: {
  vision?: boolean;
  snapshotShape?: string | null;
  protectTokens?: number;
  minElisionSavings?: number;
  keepImages?: number;
  maxSnapshotPages?: number;
}): CapabilityOverrides => {
  const out: CapabilityOverrides = {};
  if (q.vision !== undefined) out.vision = q.vision;
  if (q.snapshotShape !== undefined) out.snapshotShape = q.snapshotShape;
  if (q.protectTokens !== undefined) out.protectTokens = q.protectTokens;
  if (q.minElisionSavings !== undefined) out.minElisionSavings = q.minElisionSavings;
  if (q.keepImages !== undefined) out.keepImages = q.keepImages;
  if (q.maxSnapshotPages !== undefined) out.maxSnapshotPages = q.maxSnapshotPages;
  return out;
};
