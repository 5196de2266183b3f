export { ArborSessionStore, type ArborSessionStoreOptions } from './store';
export { type Carried, type Entry, plan, render } from './transcript';
// The client travels inside this package's tarball (bundled): an app takes it from here.
export {
  ArborClient,
  type ArborClientOptions,
  ArborNetworkError,
  ArborProblemError,
  isProblem,
} from '@arbor/client';
