/** Losing the secret makes the chain unverifiable (all `modified`), never the data unreadable. */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createKeyFile as createRandomKeyFile } from '@arbor/event-store/crypto';

const createKeyFile = (path: string): boolean => createRandomKeyFile(path, MIN_SECRET_BYTES);

const isCode = (error: unknown, code: string): boolean =>
  typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;

export const AUDIT_SECRET_ENV = 'ARBOR_AUDIT_SECRET';
export const AUDIT_KEY_FILE = 'audit.key';
export const MIN_SECRET_BYTES = 32;

export interface AuditSecret {
  key: Buffer;
  source: 'env' | 'file';
  path?: string;
  created: boolean;
}

const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const BASE64 =
  /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2,3})?$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** A 64-character hex string is also valid base64: hex wins, as documented. */
export const parseAuditSecret = (text: string, where: string): Buffer => {
  const trimmed = text.trim();
  let key: Buffer;
  if (HEX.test(trimmed)) key = Buffer.from(trimmed, 'hex');
  else if (trimmed.length > 0 && BASE64.test(trimmed)) key = Buffer.from(trimmed, 'base64');
  else if (BASE64URL.test(trimmed)) key = Buffer.from(trimmed, 'base64url');
  else throw new Error(`${where}: the audit secret must be hex or base64`);
  if (key.length < MIN_SECRET_BYTES) {
    throw new Error(
      `${where}: the audit secret must be at least ${MIN_SECRET_BYTES} bytes, got ${key.length}`,
    );
  }
  return key;
};

/** `ARBOR_AUDIT_SECRET` if set; else `<dataDir>/audit.key`, created (32 random bytes, hex, 0600) on first use. */
export const loadAuditSecret = (
  dataDir: string,
  env: Record<string, string | undefined> = process.env,
): AuditSecret => {
  const fromEnv = env[AUDIT_SECRET_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== '') {
    return { key: parseAuditSecret(fromEnv, AUDIT_SECRET_ENV), source: 'env', created: false };
  }
  const path = join(dataDir, AUDIT_KEY_FILE);
  let created = false;
  try {
    return {
      key: parseAuditSecret(readFileSync(path, 'utf8'), path),
      source: 'file',
      path,
      created,
    };
  } catch (error) {
    if (!isCode(error, 'ENOENT')) throw error;
  }
  mkdirSync(dataDir, { recursive: true });
  created = createKeyFile(path);
  return { key: parseAuditSecret(readFileSync(path, 'utf8'), path), source: 'file', path, created };
};
