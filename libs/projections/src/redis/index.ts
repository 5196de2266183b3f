export * from './connection';
export * from './redis-read-model';
export * from './pool';
export * from './read-side';
export * from './rate-buckets';
