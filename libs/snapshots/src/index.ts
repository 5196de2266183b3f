export * from './shapes';
export * from './layout';
export * from './serialize';
export * from './render';
export { readImageSize } from './image-size';
export { SNAPSHOT_FONT } from './font';
