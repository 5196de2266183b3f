/** @arbor/ai-sdk — Arbor as the conversation history of the `ai` package's step loops. */
export {
  type ArborContextLike,
  type ArborLikeBlock,
  type ArborLikeMessage,
  fromArbor,
  type StepUsage,
  toArbor,
  UnsupportedPartError,
} from './mapping';
export { ArborHistory, type CommitOptions, type FinishedLoop, type NextRequest } from './history';
// The client travels inside this package's tarball (bundled): an app takes it from here.
export {
  ArborClient,
  type ArborClientOptions,
  ArborNetworkError,
  ArborProblemError,
  isProblem,
} from '@arbor/client';
