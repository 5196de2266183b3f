import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A fast hash suffices: a 256-bit random secret cannot be guessed from its SHA-256. */
const KEY = /^arb_([A-Za-z0-9]{16})_([A-Za-z0-9_-]{43})$/;

export interface IssuedKey {
  keyId: string;
  apiKey: string;
  secretHash: string;
}

const ALPHANUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export const randomAlphanumeric = (length: number): string => {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHANUM[byte % 62];
    }
  }
  return out;
};

export const hashSecret = (secret: string): string =>
  createHash('sha256').update(secret, 'utf8').digest('hex');

export const issueKey = (): IssuedKey => {
  const keyId = randomAlphanumeric(16);
  const secret = randomBytes(32).toString('base64url');
  return { keyId, apiKey: `arb_${keyId}_${secret}`, secretHash: hashSecret(secret) };
};

export const parseKey = (apiKey: string): { keyId: string; secret: string } | null => {
  const m = KEY.exec(apiKey);
  return m ? { keyId: m[1], secret: m[2] } : null;
};

/** Constant-time comparison of a presented secret with a stored hash. */
export const secretMatches = (secret: string, secretHash: string): boolean => {
  const a = Buffer.from(hashSecret(secret), 'hex');
  const b = Buffer.from(secretHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
};

export const safeEqual = (a: string, b: string): boolean => {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
};
