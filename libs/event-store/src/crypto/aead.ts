/** AES-256-GCM from node:crypto: `iv (12) | tag (16) | ciphertext`, with associated data. */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Nonces sliced from a CSPRNG pool, each used once: a per-seal randomBytes call cost 2 % of append CPU. */
const POOL_BYTES = IV_BYTES * 512;
let pool = Buffer.alloc(0);
let poolAt = POOL_BYTES;

const freshIv = (): Buffer => {
  if (poolAt + IV_BYTES > pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolAt = 0;
  }
  const iv = Buffer.from(pool.subarray(poolAt, poolAt + IV_BYTES));
  pool.fill(0, poolAt, poolAt + IV_BYTES);
  poolAt += IV_BYTES;
  return iv;
};

export const seal = (key: Buffer, plaintext: Buffer, aad: Buffer): Buffer => {
  const iv = freshIv();
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad);
  const body = cipher.update(plaintext);
  cipher.final();
  return Buffer.concat([iv, cipher.getAuthTag(), body], IV_BYTES + TAG_BYTES + body.length);
};

export const open = (key: Buffer, sealed: Buffer, aad: Buffer): Buffer => {
  if (sealed.length < IV_BYTES + TAG_BYTES) throw new Error('sealed value too short');
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
  decipher.setAAD(aad);
  decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  const body = decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES));
  decipher.final(); // throws when the tag does not match: body is then never returned
  return body;
};
