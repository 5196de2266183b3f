import { createHash } from 'node:crypto';
import {
  assembleContext,
  type AssembleInput,
  type AssembleResult,
  CannotFitError,
  type PageCache,
  type ProviderName,
  type RenderPages,
  ReplayDivergenceError,
  type RungReceipt,
  type Summarize,
  type TokenCache,
  UnsupportedImageSourceError,
} from '@arbor/context';

/**
 * One assembly as data, so it can cross to a worker thread (structured clone): the ladder's
 * input without its functions and caches, which each side supplies itself (`AssemblyDeps`).
 */
export type AssemblyInput = Omit<
  AssembleInput,
  'renderPages' | 'summarize' | 'newId' | 'tokenCache' | 'pageCache' | 'serialize'
>;

export interface AssemblyTask {
  input: AssemblyInput;
  /** The snapshot renderer is configured (else the snapshot rung is unavailable). */
  render: boolean;
  /** A summarizer is configured (else the summary rung is unavailable). */
  summarize: boolean;
}

/** A ladder error as data (a class instance does not survive the thread boundary). */
export type AssemblyFailure =
  | {
      kind: 'cannot_fit';
      estimatedTokens: number;
      targetTokens: number;
      budgetTokens: number;
      rungsTried: RungReceipt[];
      floor: CannotFitError['floor'];
    }
  | {
      kind: 'unsupported_image_source';
      provider: ProviderName;
      messageId: string;
      path: string;
      source: 'url' | 'file';
      detail: string;
    }
  | { kind: 'replay_diverged'; estimatedTokens: number; targetTokens: number };

export interface AssemblyDone {
  ok: true;
  result: AssembleResult;
  /** sha256 of the body's JSON text (what `ContextAssembled.bodyHash` records). */
  bodyHash: string;
  /** UTF-8 bytes of the window's messages as JSON: what the call assembled from. */
  sourceBytes: number;
  /** Snapshot pages rendered by this call (pages served from the page cache not counted). */
  renderedPages: number;
}

export type AssemblyOutcome = AssemblyDone | { ok: false; failure: AssemblyFailure };

export interface AssemblyDeps {
  tokenCache: TokenCache;
  pageCache: PageCache;
  renderPages: RenderPages | null;
  summarize: Summarize | null;
  newId: () => string;
}

/** The ladder's input as data: its functions and caches left out (each side has its own). */
export const assemblyInputOf = (input: AssembleInput): AssemblyInput => {
  const out: Partial<AssembleInput> = { ...input };
  for (const k of [
    'renderPages',
    'summarize',
    'newId',
    'tokenCache',
    'pageCache',
    'serialize',
  ] as const) {
    delete out[k];
  }
  return out as AssemblyInput;
};

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

const failureOf = (e: unknown): AssemblyFailure | null => {
  if (e instanceof CannotFitError) {
    return {
      kind: 'cannot_fit',
      estimatedTokens: e.estimatedTokens,
      targetTokens: e.targetTokens,
      budgetTokens: e.budgetTokens,
      rungsTried: [...e.rungsTried],
      floor: e.floor,
    };
  }
  if (e instanceof UnsupportedImageSourceError) {
    return {
      kind: 'unsupported_image_source',
      provider: e.provider,
      messageId: e.messageId,
      path: e.path,
      source: e.source,
      detail: e.message,
    };
  }
  if (e instanceof ReplayDivergenceError) {
    return {
      kind: 'replay_diverged',
      estimatedTokens: e.estimatedTokens,
      targetTokens: e.targetTokens,
    };
  }
  return null;
};

/** The ladder's error again, on the side that asked (the same class, fields and message). */
export const errorOf = (f: AssemblyFailure): Error => {
  switch (f.kind) {
    case 'cannot_fit':
      return new CannotFitError(
        f.estimatedTokens,
        f.targetTokens,
        f.budgetTokens,
        f.rungsTried,
        f.floor,
      );
    case 'unsupported_image_source':
      return new UnsupportedImageSourceError(f.provider, f.messageId, f.path, f.source, f.detail);
    case 'replay_diverged':
      return new ReplayDivergenceError(f.estimatedTokens, f.targetTokens);
  }
};

/**
 * Runs one assembly: the same code in a worker thread and in the request loop
 * (`ARBOR_HEAVY_THREADS=0`), so both give the same bytes. Ladder errors come back as data.
 */
export async function runAssembly(
  task: AssemblyTask,
  deps: AssemblyDeps,
): Promise<AssemblyOutcome> {
  let renderedPages = 0;
  const render = deps.renderPages;
  const renderPages: RenderPages | undefined =
    task.render && render !== null
      ? async (text, shape) => {
          const pages = await render(text, shape);
          renderedPages += pages.length;
          return pages;
        }
      : undefined;
  try {
    const result = await assembleContext({
      ...task.input,
      ...(renderPages !== undefined ? { renderPages } : {}),
      ...(task.summarize && deps.summarize !== null ? { summarize: deps.summarize } : {}),
      // A reproduction decides nothing: a new id asked for is a bug, said loudly.
      newId: task.input.replayOnly
        ? () => {
            throw new Error('a reproduction must not decide anything');
          }
        : deps.newId,
      tokenCache: deps.tokenCache,
      pageCache: deps.pageCache,
    });
    return {
      ok: true,
      result,
      bodyHash: sha256(JSON.stringify(result.body)),
      sourceBytes: Buffer.byteLength(JSON.stringify(task.input.messages)),
      renderedPages,
    };
  } catch (e) {
    const failure = failureOf(e);
    if (failure === null) throw e;
    return { ok: false, failure };
  }
}
