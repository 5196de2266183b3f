/** @arbor/langgraph — Arbor as a LangGraph checkpointer. */
export { ArborSaver, type ArborSaverOptions } from './saver';
export { toTurns, type TurnEnd } from './messages';
