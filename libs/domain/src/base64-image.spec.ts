import fc from 'fast-check';
import { checkBase64, decodedLength } from './base64-image';
import { readImageHeaderBase64 } from './image-header';
import { gifBase64, jpegBase64, pngBase64, webpBase64 } from './testing/images';

describe('checkBase64', () => {
  it('accepts every canonical encoding and computes its decoded length', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 64 }), (data) => {
        const b64 = Buffer.from(data).toString('base64');
        expect(checkBase64(b64)).toBeNull();
        expect(decodedLength(b64)).toBe(data.length);
      }),
    );
  });

  it.each([
    ['', 'empty'],
    ['QUJD RA==', 'alphabet'],
    ['QUJDRA==\n', 'alphabet'],
    ['QUJD-_==', 'alphabet'],
    ['QU=JDRA=', 'alphabet'],
    ['QUJDRA', 'length'],
    ['QUJDRA=', 'length'],
    ['QUJDRB==', 'padding'],
    ['QUJDREF=', 'padding'],
  ])('rejects %j (%s)', (data, problem) => {
    expect(checkBase64(data)).toBe(problem);
  });
});

describe('the media type the header says (readImageHeaderBase64)', () => {
  it.each([
    [pngBase64(), 'image/png'],
    [jpegBase64(), 'image/jpeg'],
    [gifBase64(), 'image/gif'],
    [webpBase64(), 'image/webp'],
    [Buffer.from('hello world, not an image').toString('base64'), null],
    [Buffer.from('RIFF1234WAVE').toString('base64'), null],
  ])('reads the magic bytes of %s', (data, type) => {
    const r = readImageHeaderBase64(data);
    expect('mediaType' in r ? r.mediaType : null).toBe(type);
  });
});
