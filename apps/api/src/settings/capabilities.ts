/** Checks of the capability overrides that JSON Schema cannot state (their schemas are in @arbor/contract). */
import {
  type CapabilityOverrides,
  type CapabilityTable,
  isSnapshotShapeName,
  SNAPSHOT_SHAPES,
} from '@arbor/context';
import { Problem } from '../problem/problem';

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
