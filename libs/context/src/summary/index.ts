/** The summary rung's provider client (libs/context/README.md, "Summary rung client"). */
export * from './errors';
export {
  DEFAULT_SUMMARY_BASE_URLS,
  SUMMARY_PROVIDER_NAMES,
  type SummaryProviderName,
} from './wire';
export { serializeForSummary, type SummarySerializeOptions } from './serialize';
export {
  createSummarizer,
  MAX_SHRINKS,
  MIN_CHUNK_TOKENS,
  REQUEST_OVERHEAD_TOKENS,
  WINDOW_SAFETY,
  type SummarizeRequest,
  type Summarizer,
  type SummarizerConfig,
  type SummarizeResult,
} from './summarizer';
