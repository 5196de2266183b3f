import { conversationsProjection } from '../conversations';

/** The read models every process projects, and the streams they read. */
export const PROJECTIONS = [conversationsProjection] as const;
export const PROJECTION_FILTER = { streamPrefixes: ['conv-'] };
export const PROJECTION_SET = { projections: PROJECTIONS, filter: PROJECTION_FILTER };
