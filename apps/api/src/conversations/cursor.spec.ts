import { createCipheriv, createHmac, randomBytes } from 'node:crypto';
import { gcmsiv } from '@noble/ciphers/aes.js';
import { Problem } from '../problem/problem';
import { cursorCodec } from './cursor';

const hex = (s: string) => Buffer.from(s, 'hex');

// RFC 8452, Appendix C.2 (AEAD_AES_256_GCM_SIV): key, nonce, AAD, plaintext, ciphertext ‖ tag.
const K1 = '0100000000000000000000000000000000000000000000000000000000000000';
const N1 = '030000000000000000000000';
const RFC_8452_C2: readonly [string, string, string, string, string][] = [
  [K1, N1, '', '', '07f5f4169bbf55a8400cd47ea6fd400f'],
  [K1, N1, '', '0100000000000000', 'c2ef328e5c71c83b843122130f7364b761e0b97427e3df28'],
  [
    K1,
    N1,
    '01',
    '02000000000000000000000000000000',
    'c91545823cc24f17dbb0e9e807d5ec17b292d28ff61189e8e49f3875ef91aff7',
  ],
  [
    K1,
    N1,
    '010000000000000000000000000000000200',
    '0300000000000000000000000000000004000000',
    '43dd0163cdb48f9fe3212bf61b201976067f342bb879ad976d8242acc188ab59cabfe307',
  ],
  [
    'e66021d5eb8e4f4066d4adb9c33560e4f46e44bb3da0015c94f7088736864200',
    'e0eaf5284d884a0e77d31646',
    '',
    '',
    '169fbb2fbf389a995f6390af22228a62',
  ],
  [
    'bae8e37fc83441b16034566b7a806c46bb91c3c5aedb64a6c590bc84d1a5e269',
    'e4b47801afc0577e34699b9e',
    '4fbdc66f14',
    '671fdd',
    '0eaccb93da9bb81333aee0c785b240d319719d',
  ],
  [
    '6545fc880c94a95198874296d5cc1fd161320b6920ce07787f86743b275d1ab3',
    '2f6d1f0434d8848c1177441f',
    '6787f3ea22c127aaf195',
    '195495860f04',
    'a254dad4f3f96b62b84dc40c84636a5ec12020ec8c2c',
  ],
];

describe('AES-256-GCM-SIV (the cipher under the page cursors)', () => {
  it.each(RFC_8452_C2)(
    'matches RFC 8452 C.2: key %s nonce %s aad %s',
    (key, nonce, aad, plain, sealed) => {
      const c = gcmsiv(hex(key), hex(nonce), hex(aad));
      expect(Buffer.from(c.encrypt(hex(plain))).toString('hex')).toBe(sealed);
      expect(Buffer.from(gcmsiv(hex(key), hex(nonce), hex(aad)).decrypt(hex(sealed)))).toEqual(
        hex(plain),
      );
    },
  );
});

const code = (f: () => unknown): string | undefined => {
  try {
    f();
  } catch (e) {
    if (e instanceof Problem) {
      const errors = (e.extensions as { errors?: { code: string }[] }).errors;
      return errors?.[0]?.code;
    }
    throw e;
  }
  return undefined;
};

describe('cursorCodec', () => {
  const secret = randomBytes(32);
  const codec = cursorCodec(secret);

  it('opens what it sealed, for the same tenant and list, and seals the same page the same way', () => {
    const c = codec.encode('t1', 'conversations', 42);
    expect(codec.decode('t1', 'conversations', c)).toBe(42);
    expect(codec.encode('t1', 'conversations', 42)).toBe(c);
    const k = codec.encodeKey('t1', 'byTitle', { key: 'a\nb', seq: 7 });
    expect(codec.decodeKey('t1', 'byTitle', k)).toEqual({ key: 'a\nb', seq: 7 });
    expect(c).not.toContain('42');
  });

  it('refuses a cursor of another tenant, another list, an edited or a forged one (invalid_cursor)', () => {
    const c = codec.encode('t1', 'conversations', 42);
    expect(code(() => codec.decode('t2', 'conversations', c))).toBe('invalid_cursor');
    expect(code(() => codec.decode('t1', 'events:c1', c))).toBe('invalid_cursor');
    const edited = Buffer.from(c, 'base64url');
    edited[0] ^= 1;
    expect(code(() => codec.decode('t1', 'conversations', edited.toString('base64url')))).toBe(
      'invalid_cursor',
    );
    expect(code(() => codec.decode('t1', 'conversations', 'AAAA'))).toBe('invalid_cursor');
    expect(code(() => cursorCodec(randomBytes(32)).decode('t1', 'conversations', c))).toBe(
      'invalid_cursor',
    );
  });

  it('refuses a cursor of the earlier format (AES-GCM with an HMAC synthetic IV) as invalid_cursor', () => {
    const key = createHmac('sha256', secret).update('arbor page cursor v1').digest();
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', key, iv);
    c.setAAD(Buffer.from('t1\nconversations'));
    const body = Buffer.concat([c.update('42', 'utf8'), c.final()]);
    const old = Buffer.concat([iv, c.getAuthTag(), body]).toString('base64url');
    expect(code(() => codec.decode('t1', 'conversations', old))).toBe('invalid_cursor');
  });
});
