/**
 * What the ladder needs to know about a model: whether it reads images (the snapshot rung needs
 * vision), which page shape its snapshots use, and the knobs of the free rungs. A default table
 * by model-name prefix, overridable per model by the caller (tenant or model configuration).
 */
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

/**
 * A page shape as the planner sees it: pixel size (what the provider bills) and about how many
 * characters of serialized history one page holds. The renderer (@arbor/snapshots) owns the
 * real layout; `charsPerPage` only sizes the plan, and the actual page count is what was
 * rendered.
 */
export interface SnapshotShape {
  name: string;
  width: number;
  height: number;
  charsPerPage: number;
}

export interface ModelCapabilities {
  /** The model accepts image input. Without it the snapshot rung is skipped. */
  vision: boolean;
  /** The page shape for snapshots; null → no snapshots for this model. */
  snapshotShape: SnapshotShape | null;
  /** Elision never touches the newest this-many tokens of the history. */
  protectTokens: number;
  /** Elision acts only when it saves at least this many tokens (or when that makes it fit). */
  minElisionSavings: number;
  /** Image stripping keeps this many most recent images when it strips for room. */
  keepImages: number;
  /**
   * At most this many snapshot pages in one request; default: as many images as the provider
   * takes per request for this model (`maxImagesFor`), other images counted against it too.
   */
  maxSnapshotPages: number;
  /** Overrides of the provider's per-request limits (`PROVIDER_LIMITS`). */
  limits: Partial<ProviderLimits>;
}

/**
 * Planning shapes: @arbor/snapshots' page shapes (pixel size, grid), as the planner sees them.
 * Anthropic bills w·h/750 up to ~1.15 MP (1092² ≈ 1,590 tokens); OpenAI tile models 512-px tiles
 * (512×2048 = 4 tiles at detail high); patch models 32-px patches up to 1,536 (1024×1536);
 * Gemini 2.x 258 per 768² tile (Gemini 3 a flat amount per image, whatever its size).
 * `charsPerPage` is 95 % of the grid's cells (the renderer's flow layout fills every cell): a
 * slight overestimate of pages, which only makes the plan safer; the page count recorded is what
 * was rendered.
 */
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

/** The model name without a `models/` or `publishers/google/models/` style path prefix. */
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

/** The capabilities of a model: the default table, then the caller's overrides. */
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

/**
 * Capability overrides as a tenant or a request states them: JSON-safe, the page shape by name
 * (a key of `SNAPSHOT_SHAPES`, or null for no snapshots). Absent fields keep the value below.
 */
export type CapabilityOverrides = {
  -readonly [K in keyof ContextCapabilitiesRecord]?: ContextCapabilitiesRecord[K];
};

/** Overrides by lowercase model-name prefix; the longest prefix matching the model wins. */
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

/**
 * The table's rule for a model: the longest prefix of its bare lowercase name (a `models/`-style
 * path dropped, as the default table does), or null when none matches.
 */
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

/** The resolved capabilities as a `ContextAssembled` event records them (shape by name). */
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
  /** The full capabilities to hand the ladder (`AssembleInput.capabilities`). */
  capabilities: ModelCapabilities;
  /** The same, as recorded in `ContextAssembled` and shown in the receipt. */
  record: ContextCapabilitiesRecord;
  /** The prefix of the table's rule that applied, or null. */
  rule: string | null;
}

/**
 * The default table, then the (tenant's) table's longest-prefix rule, then the request's own
 * overrides, field by field. Throws `UnknownSnapshotShapeError` for a shape name it lacks.
 */
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
