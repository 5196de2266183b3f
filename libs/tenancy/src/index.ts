export * from './keys';
export * from './events';
export * from './directory';
export * from './decide';
