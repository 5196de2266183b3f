export * from './redis-read-model';
