/** @arbor/langgraph — Arbor as a LangGraph checkpointer. */
export { ArborSaver, type ArborSaverOptions } from './saver';
export { toTurns, type TurnEnd } from './messages';
// The client travels inside this package's tarball (bundled): an app takes it from here.
export {
  ArborClient,
  type ArborClientOptions,
  ArborNetworkError,
  ArborProblemError,
  isProblem,
} from '@arbor/client';
