/** The master key wraps every data key; losing it makes every sealed event unreadable for good. */
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const MASTER_KEY_ENV = 'ARBOR_MASTER_KEY';
export const MASTER_KEY_FILE = 'master.key';
export const KEY_BYTES = 32;

export interface MasterKey {
  key: Buffer;
  source: 'env' | 'file';
  path?: string;
  created: boolean;
}

const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

export const parseMasterKey = (text: string, where: string): Buffer => {
  const trimmed = text.trim();
  let key: Buffer;
  if (HEX.test(trimmed)) key = Buffer.from(trimmed, 'hex');
  else if (BASE64.test(trimmed)) key = Buffer.from(trimmed, 'base64');
  else throw new Error(`${where}: the master key must be hex or base64`);
  if (key.length !== KEY_BYTES) {
    throw new Error(
      `${where}: the master key must be exactly ${KEY_BYTES} bytes, got ${key.length}`,
    );
  }
  return key;
};

const isCode = (error: unknown, code: string): boolean =>
  typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;

/** A random key file (hex, 0600), written whole via a hard-linked temp file: the first writer wins. */
export const createKeyFile = (path: string, bytes = KEY_BYTES): boolean => {
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temporary, `${randomBytes(bytes).toString('hex')}\n`, {
    mode: 0o600,
    flag: 'wx',
  });
  try {
    linkSync(temporary, path);
    return true;
  } catch (error) {
    if (isCode(error, 'EEXIST')) return false;
    throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
};

export const loadMasterKey = (
  dataDir: string,
  env: Record<string, string | undefined> = process.env,
): MasterKey => {
  const fromEnv = env[MASTER_KEY_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== '') {
    return { key: parseMasterKey(fromEnv, MASTER_KEY_ENV), source: 'env', created: false };
  }
  const path = join(dataDir, MASTER_KEY_FILE);
  try {
    return {
      key: parseMasterKey(readFileSync(path, 'utf8'), path),
      source: 'file',
      path,
      created: false,
    };
  } catch (error) {
    if (!isCode(error, 'ENOENT')) throw error;
  }
  mkdirSync(dataDir, { recursive: true });
  const created = createKeyFile(path);
  return { key: parseMasterKey(readFileSync(path, 'utf8'), path), source: 'file', path, created };
};
