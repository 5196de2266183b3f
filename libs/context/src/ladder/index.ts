export * from './types';
export * from './errors';
export * from './capabilities';
export * from './token-cache';
export { assembleContext, autoTarget, DEFAULT_RESERVE_TOKENS, OVERFLOW_HEADROOM } from './assemble';
export { serializeMessages, SNAPSHOT_TEXT_FORMAT } from './serialize';
export { planView, renderView, type ViewItem, type ViewPlan } from './view';
export { analyzeWindow, type WindowShape } from './window';
export { messageUrl } from './placeholders';
