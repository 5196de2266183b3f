/**
 * @arbor/context — turns a chosen neutral history into a request body a provider accepts, and
 * says what it costs: encoders, validity checkers, token accounting, overflow parsing, and the
 * recovery ladder with the assembler that walks it to a budget (`assembleContext`).
 */
export * from './types';
export * from './providers';
export * from './validity';
export * from './tokens';
export * from './overflow';
export * from './ladder';
export * from './summary';
