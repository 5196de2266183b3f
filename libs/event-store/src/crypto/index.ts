export * from './master-key';
export * from './key-store';
export * from './content';
export * from './sealed-store';
export { seal as sealBytes, open as openBytes } from './aead';
export { createKeyFile } from './master-key';
