export * from './types';
export * from './errors';
export * from './expected-revision';
export * from './stream-names';
export * from './keyed-queue';
export * from './stream-data';
