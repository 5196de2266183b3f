/** @arbor/openai-agents — Arbor as the session store of `@openai/agents` runs. */
export { ArborSession, type ArborSessionOptions, StaleSessionError } from './session';
export {
  CLIENT_KEY,
  encodeItem,
  fromArbor,
  toArbor,
  type ToArborOptions,
  UnsupportedItemError,
} from './mapping';
export { arborContext, type ContextFilterOptions, fromResponsesInput } from './context-filter';
// The client travels inside this package's tarball (bundled): an app takes it from here.
export {
  ArborClient,
  type ArborClientOptions,
  ArborNetworkError,
  ArborProblemError,
  isProblem,
} from '@arbor/client';
