// A transcript larger than the summarizer's window is folded (window k carries summary k−1), so
// a summary request never re-sends the request that overflowed (README.md).
import type { Message } from '@arbor/domain/messages';
import { countTextTokens } from '../tokens/text';
import { SummaryTooLongError, SummaryUnavailableError } from './errors';
import { chunkText, chunkTokens, piece, takeChunk, type Piece } from './chunks';
import { postJson, realSleep } from './http';
import { systemPrompt, userPrompt } from './prompt';
import { serializeForSummary, type SummarySerializeOptions } from './serialize';
import {
  DEFAULT_SUMMARY_BASE_URLS,
  wireFormat,
  type SummaryProviderName,
  type SummaryReply,
  type WireFormat,
} from './wire';

export interface SummarizerConfig {
  provider: SummaryProviderName;
  baseUrl?: string;
  apiKey?: string;
  model?: string;
  /** The summarizer model's context window, in tokens (input and output together). */
  contextWindowTokens: number;
  maxSummaryTokens: number;
  timeoutMs?: number;
  calibrationFactor?: number;
  maxTokensField?: 'max_completion_tokens' | 'max_tokens';
  serialize?: SummarySerializeOptions;
  maxRetryWaitMs?: number;
  backoffMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export interface SummarizeRequest {
  messages: readonly Message[];
  targetTokens?: number;
  instructions?: string;
}

export interface SummarizeResult {
  summary: string;
  model: string;
  windows: number;
  usage: { inputTokens: number; outputTokens: number };
  truncated: boolean;
}

export interface Summarizer {
  readonly available: boolean;
  readonly unavailableReason?: string;
  readonly provider: SummaryProviderName;
  readonly model?: string;
  summarize(request: SummarizeRequest): Promise<SummarizeResult>;
}

/** Share of the window a request may fill by our estimate: the rest absorbs estimate error. */
export const WINDOW_SAFETY = 0.95;
export const REQUEST_OVERHEAD_TOKENS = 16;
/** Below this a window would make too little progress to be worth a call. */
export const MIN_CHUNK_TOKENS = 256;
export const MAX_SHRINKS = 4;

const DEFAULT_TIMEOUT_MS = 120_000;

interface Window {
  chunk: Piece[];
  rest: Piece[];
  user: string;
  estimate: number;
}

interface FoldState {
  queue: Piece[];
  summary?: string;
  inputLimit: number;
  factor: number;
  windows: number;
  inputTokens: number;
  outputTokens: number;
  model: string;
  truncated: boolean;
}

function validate(config: SummarizerConfig): void {
  const { contextWindowTokens: window, maxSummaryTokens: output } = config;
  if (!Number.isInteger(window) || window <= 0) {
    throw new RangeError('contextWindowTokens must be a positive integer');
  }
  if (!Number.isInteger(output) || output <= 0) {
    throw new RangeError('maxSummaryTokens must be a positive integer');
  }
  const factor = config.calibrationFactor ?? 1;
  if (!(factor > 0)) throw new RangeError('calibrationFactor must be positive');
  const room =
    Math.floor(((window - output) * WINDOW_SAFETY) / factor) -
    countTextTokens(systemPrompt(output)) -
    REQUEST_OVERHEAD_TOKENS -
    2 * output;
  if (room < MIN_CHUNK_TOKENS) {
    throw new RangeError(
      `a ${window}-token window cannot fold with ${output}-token summaries: ` +
        `${room} tokens would be left for the transcript (at least ${MIN_CHUNK_TOKENS} needed)`,
    );
  }
}

function unavailableReason(config: SummarizerConfig): string | undefined {
  if (config.apiKey === undefined || config.apiKey.trim() === '') return 'no API key configured';
  if (config.model === undefined || config.model.trim() === '') return 'no model configured';
  return undefined;
}

function planWindow(
  queue: readonly Piece[],
  system: string,
  frame: (transcript: string, more: boolean) => string,
  limit: number,
  cap: number,
): Window | null {
  const systemTokens = countTextTokens(system) + REQUEST_OVERHEAD_TOKENS;
  let budget = Math.min(cap, limit - systemTokens - countTextTokens(frame('', true)));
  while (budget >= MIN_CHUNK_TOKENS) {
    const { chunk, rest } = takeChunk(queue, budget);
    const user = frame(chunkText(chunk), rest.length > 0);
    const estimate = systemTokens + countTextTokens(user);
    if (estimate <= limit) return { chunk, rest, user, estimate };
    budget -= Math.max(1, estimate - limit);
  }
  return null;
}

/** With the provider's numbers the estimate is calibrated to them; without, the chunk halves. */
function shrinkAfter(
  error: SummaryTooLongError,
  window: Window,
  state: FoldState,
  config: SummarizerConfig,
): number {
  const chunkSize = chunkTokens(window.chunk);
  const overflow = error.overflow;
  if (overflow === null) {
    const half = Math.floor(chunkSize / 2);
    // Later windows start at the size this retry will have, not at the one that failed.
    state.factor *= window.estimate / Math.max(1, window.estimate - half);
    return half;
  }
  const configured = config.contextWindowTokens - config.maxSummaryTokens;
  if (overflow.limitTokens < configured) {
    state.inputLimit = Math.min(state.inputLimit, overflow.limitTokens - config.maxSummaryTokens);
  }
  state.factor = Math.max(state.factor, overflow.measuredTokens / window.estimate);
  return Math.floor(chunkSize * 0.9);
}

export function createSummarizer(config: SummarizerConfig): Summarizer {
  validate(config);
  const reason = unavailableReason(config);
  const wire: WireFormat = wireFormat(config.provider, config.maxTokensField);
  const baseUrl = config.baseUrl?.trim() || DEFAULT_SUMMARY_BASE_URLS[config.provider];

  async function call(system: string, user: string): Promise<SummaryReply> {
    const model = config.model ?? '';
    const { status, body } = await postJson({
      url: wire.url(baseUrl),
      headers: wire.headers(config.apiKey ?? ''),
      body: wire.body({ model, system, user, maxTokens: config.maxSummaryTokens }),
      timeoutMs: config.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxRetryWaitMs: config.maxRetryWaitMs ?? 30_000,
      backoffMs: config.backoffMs ?? 1000,
      sleep: config.sleep ?? realSleep,
      toError: wire.error,
    });
    return wire.reply(status, body, model);
  }

  async function summarize(request: SummarizeRequest): Promise<SummarizeResult> {
    if (reason !== undefined) throw new SummaryUnavailableError(reason);
    const target = Math.max(
      1,
      Math.min(
        config.maxSummaryTokens,
        request.targetTokens ?? Math.floor(config.maxSummaryTokens * 0.75),
      ),
    );
    const system = systemPrompt(target);
    const state: FoldState = {
      queue: serializeForSummary(request.messages, config.serialize).map(piece),
      inputLimit: config.contextWindowTokens - config.maxSummaryTokens,
      factor: config.calibrationFactor ?? 1,
      windows: 0,
      inputTokens: 0,
      outputTokens: 0,
      model: config.model ?? '',
      truncated: false,
    };

    while (state.queue.length > 0) {
      let cap = Number.POSITIVE_INFINITY;
      for (let shrinks = 0; ; shrinks += 1) {
        const frame = (transcript: string, more: boolean): string =>
          userPrompt({
            previousSummary: state.summary,
            transcript,
            part: state.windows + 1,
            more,
            targetTokens: target,
            instructions: request.instructions,
          });
        const limit = Math.floor((state.inputLimit * WINDOW_SAFETY) / state.factor);
        const window = planWindow(state.queue, system, frame, limit, cap);
        if (window === null) {
          throw new SummaryTooLongError(
            0,
            'window_too_small',
            `window ${state.windows + 1} leaves fewer than ${MIN_CHUNK_TOKENS} tokens for the transcript`,
            null,
          );
        }
        try {
          const reply = await call(system, window.user);
          state.summary = reply.text;
          state.queue = window.rest;
          state.windows += 1;
          state.inputTokens += reply.inputTokens;
          state.outputTokens += reply.outputTokens;
          state.model = reply.model;
          state.truncated ||= reply.stopReason === 'max_tokens' || reply.stopReason === 'length';
          break;
        } catch (error) {
          if (!(error instanceof SummaryTooLongError) || shrinks >= MAX_SHRINKS) throw error;
          cap = shrinkAfter(error, window, state, config);
        }
      }
    }

    return {
      summary: state.summary ?? '',
      model: state.model,
      windows: state.windows,
      usage: { inputTokens: state.inputTokens, outputTokens: state.outputTokens },
      truncated: state.truncated,
    };
  }

  return {
    available: reason === undefined,
    ...(reason !== undefined ? { unavailableReason: reason } : {}),
    provider: config.provider,
    ...(config.model !== undefined ? { model: config.model } : {}),
    summarize,
  };
}
