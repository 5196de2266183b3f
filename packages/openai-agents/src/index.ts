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
