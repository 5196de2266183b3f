export * from './port';
export * from './projections';
export * from './factory';
export { erasureChannel } from './redis-backend';
export { rebuildRedisReadModels } from './redis-rebuild';
