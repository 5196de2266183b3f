import { createHmac } from 'node:crypto';
import { gcmsiv } from '@noble/ciphers/aes.js';
import { Inject, Injectable } from '@nestjs/common';
import { ARBOR_CONFIG, type ArborConfig } from '@arbor/application';
import { Problem } from '../problem/problem';
import { auditSecretOf } from '@arbor/application';

const TAG_BYTES = 16;

const invalid = (): Problem =>
  new Problem('validation_failed', 'query.cursor: not a cursor of this list', {
    errors: [
      { path: 'query.cursor', code: 'invalid_cursor', message: 'not a cursor of this list' },
    ],
  });

/**
 * Page cursors, opaque and authenticated: AES-256-GCM-SIV (RFC 8452) over the position in the
 * list, with the tenant and the list (route and conversation) as associated data. A tenant learns
 * nothing from a cursor (read-model sequence numbers are shared by every tenant, so a plain counter
 * would show how much others write), and a cursor forged, edited, or taken from another list or
 * tenant is `400 invalid_cursor`. The key is derived from the data directory's audit secret
 * (ARBOR_AUDIT_SECRET or `<dataDir>/audit.key`), so cursors survive a restart.
 */
export const cursorCodec = (secret: Buffer) => {
  const key = createHmac('sha256', secret).update('arbor page cursor gcm-siv').digest();
  const nonceKey = createHmac('sha256', secret).update('arbor page cursor nonce').digest();
  const aad = (tenantId: string, list: string) => Buffer.from(`${tenantId}\n${list}`, 'utf8');
  // One nonce per list, so the same page gives the same cursor (an answer is reproducible);
  // GCM-SIV stays secure under a repeated nonce, revealing only that two cursors are equal.
  const cipher = (tenantId: string, list: string) => {
    const ad = aad(tenantId, list);
    const nonce = createHmac('sha256', nonceKey).update(ad).digest().subarray(0, 12);
    return gcmsiv(key, nonce, ad);
  };
  const seal = (tenantId: string, list: string, text: string): string =>
    Buffer.from(cipher(tenantId, list).encrypt(Buffer.from(text, 'utf8'))).toString('base64url');
  const open = (tenantId: string, list: string, cursor: string): string => {
    const raw = Buffer.from(cursor, 'base64url');
    if (raw.length <= TAG_BYTES || raw.toString('base64url') !== cursor) throw invalid();
    try {
      return Buffer.from(cipher(tenantId, list).decrypt(raw)).toString('utf8');
    } catch {
      throw invalid();
    }
  };
  const NUMBER = /^(0|[1-9][0-9]{0,15})$/;
  return {
    encode(tenantId: string, list: string, value: number): string {
      return seal(tenantId, list, String(value));
    },
    decode(tenantId: string, list: string, cursor: string | undefined): number | null {
      if (cursor === undefined) return null;
      const text = open(tenantId, list, cursor);
      if (!NUMBER.test(text)) throw invalid();
      return Number(text);
    },
    /** A keyset position (a sort key and a seq), for the lists in another order than creation. */
    encodeKey(tenantId: string, list: string, at: { key: string; seq: number }): string {
      return seal(tenantId, list, `${at.seq}\n${at.key}`);
    },
    decodeKey(
      tenantId: string,
      list: string,
      cursor: string | undefined,
    ): { key: string; seq: number } | null {
      if (cursor === undefined) return null;
      const text = open(tenantId, list, cursor);
      const cut = text.indexOf('\n');
      if (cut < 0 || !NUMBER.test(text.slice(0, cut))) throw invalid();
      return { seq: Number(text.slice(0, cut)), key: text.slice(cut + 1) };
    },
  };
};

@Injectable()
export class Cursors {
  private readonly codec: ReturnType<typeof cursorCodec>;
  constructor(@Inject(ARBOR_CONFIG) config: ArborConfig) {
    this.codec = cursorCodec(auditSecretOf(config));
  }
  encode(tenantId: string, list: string, value: number): string {
    return this.codec.encode(tenantId, list, value);
  }
  decode(tenantId: string, list: string, cursor: string | undefined): number | null {
    return this.codec.decode(tenantId, list, cursor);
  }
  encodeKey(tenantId: string, list: string, at: { key: string; seq: number }): string {
    return this.codec.encodeKey(tenantId, list, at);
  }
  decodeKey(tenantId: string, list: string, cursor: string | undefined) {
    return this.codec.decodeKey(tenantId, list, cursor);
  }
}
