export * from './projection';
export * from './projector';
export * from './read-model-db';
export * from './conversations';
export * from './read-model-port';
export * from './redis';
export * from './state-snapshots';
export * from './backend';
