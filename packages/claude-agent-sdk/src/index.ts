export { ArborSessionStore, type ArborSessionStoreOptions } from './store';
export { type Carried, type Entry, plan, render } from './transcript';
