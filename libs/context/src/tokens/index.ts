export * from './calibration';
export * from './estimate';
export * from './image-size';
export * from './image-tokens';
export * from './text';
export * from './thinking-rules';
