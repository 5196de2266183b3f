/** What the ladder needs to know about a model: a default table by name prefix, overridable. */
import {
  cellsPerPage,
  SHAPE_IDS,
  SHAPES as PAGE_SHAPES,
  type ShapeId,
} from '@arbor/snapshots/shapes';
import type { ContextCapabilitiesRecord } from '@arbor/domain/compaction';
import { openAIImageParams } from '../tokens/image-tokens';
import type { ProviderName } from '../types';
import { type ProviderLimits, resolveLimits } from '../validity/limits';

/** `charsPerPage` only sizes the plan; the page count recorded is what was rendered. */
export interface SnapshotShape {
  name: string;
  width: number;
  height: number;
  charsPerPage: number;
}

export interface ModelCapabilities {
  /** The model accepts image input. Without it the snapshot rung is skipped. */
  vision: boolean;
  snapshotShape: SnapshotShape | null;
  protectTokens: number;
  minElisionSavings: number;
  keepImages: number;
  /**
   * At most this many snapshot pages in one request; default: as many images as the provider
   * takes per request for this model (`maxImagesFor`), other images counted against it too.
   */
  maxSnapshotPages: number;
  limits: Partial<ProviderLimits>;
}

/** `charsPerPage`: 95 % of the cells, a slight overestimate of pages that keeps plans safe. */
const planningShape = (id: ShapeId): SnapshotShape => {
  const shape = PAGE_SHAPES[id];
  return {
    name: id,
    width: shape.width,
    height: shape.height,
    charsPerPage: Math.floor(0.95 * cellsPerPage(shape)),
  };
};

export const SNAPSHOT_SHAPES: Readonly<Record<string, SnapshotShape>> = Object.fromEntries(
  SHAPE_IDS.map((id) => [id, planningShape(id)]),
);

/**
 * The denser companion of a page shape, for the oldest part of a foveated snapshot: the same
 * page size (so the same price per page) with more, smaller cells. Measured by the snapshot
 * bench like every shape (density and OCR: libs/snapshots/README.md).
 */
export const DENSER_SHAPE: Readonly<Record<string, string>> = {
  'claude-conservative': 'claude-dense',
  claude: 'claude-fine',
  'claude-dense': 'claude-fine',
  'openai-tile-large': 'openai-tile',
  'openai-patch': 'openai-patch-fine',
  gemini: 'gemini-fine',
};

export const denserShape = (shape: SnapshotShape): SnapshotShape | null => {
  const name = DENSER_SHAPE[shape.name];
  return name === undefined ? null : (SNAPSHOT_SHAPES[name] ?? null);
};

/** Which models read images, by lowercase name prefix; the longest matching prefix wins. */
export const VISION_BY_PREFIX: Readonly<Record<string, boolean>> = {
  'claude-': true,
  'claude-2': false,
  'claude-instant': false,
  'gpt-3.5': false,
  'gpt-4': false,
  'gpt-4-turbo': true,
  'gpt-4-vision': true,
  'gpt-4o': true,
  'chatgpt-4o': true,
  'gpt-4.1': true,
  'gpt-4.5': true,
  'gpt-5': true,
  o1: true,
  'o1-mini': false,
  'o1-preview': false,
  o3: true,
  'o3-mini': false,
  'o4-mini': true,
  'computer-use': true,
  'gemini-': true,
};

export const DEFAULT_CAPABILITIES: Omit<
  ModelCapabilities,
  'vision' | 'snapshotShape' | 'maxSnapshotPages'
> = {
  protectTokens: 16_000,
  minElisionSavings: 4_000,
  keepImages: 3,
  limits: {},
};

const bareModel = (model: string): string => model.toLowerCase().replace(/^.*\//, '');

export function modelHasVision(model: string): boolean {
  const name = bareModel(model);
  const prefix = Object.keys(VISION_BY_PREFIX)
    .filter((p) => name.startsWith(p))
    .sort((a, b) => b.length - a.length)[0];
  return prefix !== undefined && VISION_BY_PREFIX[prefix];
}

export function defaultSnapshotShape(provider: ProviderName, model: string): SnapshotShape {
  switch (provider) {
    case 'anthropic':
      return SNAPSHOT_SHAPES['claude-dense'];
    case 'gemini':
      return SNAPSHOT_SHAPES.gemini;
    case 'openai-chat':
    case 'openai-responses':
      return openAIImageParams(bareModel(model)).kind === 'patch'
        ? SNAPSHOT_SHAPES['openai-patch']
        : SNAPSHOT_SHAPES['openai-tile-large'];
  }
}

export function resolveCapabilities(
  provider: ProviderName,
  model: string,
  overrides: Partial<ModelCapabilities> = {},
): ModelCapabilities {
  const vision = overrides.vision ?? modelHasVision(model);
  const limits = { ...DEFAULT_CAPABILITIES.limits, ...overrides.limits };
  return {
    ...DEFAULT_CAPABILITIES,
    vision,
    snapshotShape: vision ? defaultSnapshotShape(provider, model) : null,
    maxSnapshotPages: resolveLimits(provider, limits, model).maxImages,
    ...overrides,
    limits,
  };
}

export type CapabilityOverrides = {
  -readonly [K in keyof ContextCapabilitiesRecord]?: ContextCapabilitiesRecord[K];
};

export type CapabilityTable = Readonly<Record<string, CapabilityOverrides>>;

const OVERRIDE_FIELDS = [
  'vision',
  'snapshotShape',
  'protectTokens',
  'minElisionSavings',
  'keepImages',
  'maxSnapshotPages',
] as const satisfies readonly (keyof CapabilityOverrides)[];

export class UnknownSnapshotShapeError extends Error {
  constructor(readonly shape: string) {
    super(
      `unknown snapshot page shape "${shape}"; known: ${Object.keys(SNAPSHOT_SHAPES).join(', ')}`,
    );
    this.name = 'UnknownSnapshotShapeError';
  }
}

export const isSnapshotShapeName = (name: string): boolean =>
  Object.prototype.hasOwnProperty.call(SNAPSHOT_SHAPES, name);

export function matchCapabilityRule(
  table: CapabilityTable,
  model: string,
): { prefix: string; overrides: CapabilityOverrides } | null {
  const name = bareModel(model);
  let best: string | null = null;
  for (const prefix of Object.keys(table)) {
    if (name.startsWith(prefix.toLowerCase()) && (best === null || prefix.length > best.length)) {
      best = prefix;
    }
  }
  return best === null ? null : { prefix: best, overrides: table[best] };
}

/** Field by field, later layers first; an absent (undefined) field never hides an earlier one. */
export function mergeCapabilityOverrides(
  ...layers: readonly (CapabilityOverrides | null | undefined)[]
): CapabilityOverrides {
  const out: CapabilityOverrides = {};
  for (const layer of layers) {
    if (!layer) continue;
    for (const field of OVERRIDE_FIELDS) {
      const value = layer[field];
      if (value !== undefined) (out as Record<string, unknown>)[field] = value;
    }
  }
  return out;
}

/** What `resolveCapabilities` takes; throws `UnknownSnapshotShapeError` on a shape it lacks. */
export function toModelCapabilities(overrides: CapabilityOverrides): Partial<ModelCapabilities> {
  const out: Partial<ModelCapabilities> = {};
  for (const field of OVERRIDE_FIELDS) {
    const value = overrides[field];
    if (value === undefined) continue;
    if (field === 'snapshotShape') {
      const name = value as string | null;
      if (name !== null && !isSnapshotShapeName(name)) throw new UnknownSnapshotShapeError(name);
      out.snapshotShape = name === null ? null : SNAPSHOT_SHAPES[name];
    } else {
      (out as Record<string, unknown>)[field] = value;
    }
  }
  return out;
}

export function recordCapabilities(caps: ModelCapabilities): ContextCapabilitiesRecord {
  return {
    vision: caps.vision,
    snapshotShape: caps.snapshotShape?.name ?? null,
    protectTokens: caps.protectTokens,
    minElisionSavings: caps.minElisionSavings,
    keepImages: caps.keepImages,
    maxSnapshotPages: caps.maxSnapshotPages,
  };
}

export interface LayeredCapabilities {
  capabilities: ModelCapabilities;
  record: ContextCapabilitiesRecord;
  rule: string | null;
}

/** Default table, then the tenant's longest-prefix rule, then the request's overrides, by field. */
export function layerCapabilities(
  provider: ProviderName,
  model: string,
  table: CapabilityTable = {},
  request: CapabilityOverrides = {},
): LayeredCapabilities {
  const rule = matchCapabilityRule(table, model);
  const merged = mergeCapabilityOverrides(rule?.overrides, request);
  const capabilities = resolveCapabilities(provider, model, toModelCapabilities(merged));
  return { capabilities, record: recordCapabilities(capabilities), rule: rule?.prefix ?? null };
}
