/**
 * @arbor/context — turns a chosen neutral history into a request body a provider accepts, and
 * says what it costs: encoders, validity checkers, token accounting, overflow parsing.
 * (The ladder of recovery rungs and the assembler are built on top of this.)
 */
export * from './types';
export * from './providers';
export * from './validity';
export * from './tokens';
export * from './overflow';
