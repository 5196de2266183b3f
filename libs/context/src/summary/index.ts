/** The summary rung's provider client (see the README, "Summary rung client"). */
export * from './errors';
export * from './wire';
export { retryAfterMs } from './http';
export { serializeMessages, truncateMiddle, type SerializeOptions } from './serialize';
export {
  createSummarizer,
  MAX_SHRINKS,
  MIN_CHUNK_TOKENS,
  REQUEST_OVERHEAD_TOKENS,
  WINDOW_SAFETY,
  type SummarizeRequest,
  type Summarizer,
  type SummarizerConfig,
  type SummaryResult,
} from './summarizer';
export { summaryConfigFromEnv, SUMMARY_ENV, type SummaryEnvConfig } from './env';
