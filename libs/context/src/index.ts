/** A chosen neutral history → a body its provider accepts, and what it costs (README.md). */
export * from './types';
export * from './providers';
export * from './validity';
export * from './tokens';
export * from './overflow';
export * from './ladder';
export * from './summary';
