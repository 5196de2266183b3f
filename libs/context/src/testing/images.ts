/** Real images for tests: PNGs built with node's zlib, and small files made once with ImageMagick. */
import { deflateSync } from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** One PNG chunk: length, type, data, CRC-32. */
export function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A valid RGB PNG of the given size (a diagonal gradient), as bytes. */
export function makePng(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(2, 9); // colour type: truecolour
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1);
    for (let x = 0; x < width; x++) rows.fill((x + y) & 0xff, row + 1 + x * 3, row + 4 + x * 3);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(rows)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

export function makePngBase64(width: number, height: number): string {
  return makePng(width, height).toString('base64');
}

/**
 * Files made with ImageMagick 6 / libwebp (`convert -size WxH gradient:red-blue ...`), kept as
 * base64 so the tests need no image tool.
 */
export const REAL_IMAGES = {
  jpegBaseline: {
    mediaType: 'image/jpeg',
    width: 37,
    height: 23,
    base64:
      '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAUDBAQEAwUEBAQFBQUGBwwIBwcHBw8LCwkMEQ8SEhEPERETFhwXExQaFR' +
      'ERGCEYGh0dHx8fExciJCIeJBweHx7/2wBDAQUFBQcGBw4ICA4eFBEUHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4e' +
      'Hh4eHh4eHh4eHh4eHh4eHh4eHh4eHh7/wAARCAAXACUDASIAAhEBAxEB/8QAFgABAQEAAAAAAAAAAAAAAAAAAAUH/8' +
      'QAFxABAQEBAAAAAAAAAAAAAAAAABRhAf/EABcBAQEBAQAAAAAAAAAAAAAAAAAIBQf/xAAZEQABBQAAAAAAAAAAAAAA' +
      'AAAABBUWUmL/2gAMAwEAAhEDEQA/AMgq0q1Eq0q1sQbJ3uY6LdWlWolWlWkGyJjot1aIlWhBsiY6IlPSnoKja01ScX' +
      'JRYU9KegNaaoclFhT0Aa01Q5KLH//Z',
  },
  jpegProgressive: {
    mediaType: 'image/jpeg',
    width: 61,
    height: 33,
    base64:
      '/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAoHBwgHBgoICAgLCgoLDhgQDg0NDh0VFhEYIx8lJCIfIiEmKzcvJik0KS' +
      'EiMEExNDk7Pj4+JS5ESUM8SDc9Pjv/2wBDAQoLCw4NDhwQEBw7KCIoOzs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7' +
      'Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozv/wgARCAAhAD0DASIAAhEBAxEB/8QAFwABAQEBAAAAAAAAAAAAAAAAAAMCBf' +
      '/EABcBAQEBAQAAAAAAAAAAAAAAAAAFBgH/2gAMAwEAAhADEAAAAeQk5papCqQqkJpNFBqkKpCqQwKU8AAD/8QAFhAB' +
      'AQEAAAAAAAAAAAAAAAAAEQAw/9oACAEBAAEFAmZmZmZmZmZmZmZmZmZmZmcf/8QAFhEBAQEAAAAAAAAAAAAAAAAAEw' +
      'Ag/9oACAEDAQE/AXnnnnnnnz//xAAWEQEBAQAAAAAAAAAAAAAAAAAUACD/2gAIAQIBAT8BNGjRo0aNGz//xAAUEAEA' +
      'AAAAAAAAAAAAAAAAAABQ/9oACAEBAAY/AiP/xAAUEAEAAAAAAAAAAAAAAAAAAABQ/9oACAEBAAE/ISAAAAAD/9oADA' +
      'MBAAIAAwAAABAwwwwEEEH3333/xAAWEQEBAQAAAAAAAAAAAAAAAABxACD/2gAIAQMBAT8Qc5znOc8//8QAFhEBAQEA' +
      'AAAAAAAAAAAAAAAAcQAg/9oACAECAQE/EBCEIQhDP//EABQQAQAAAAAAAAAAAAAAAAAAAFD/2gAIAQEAAT8QIAAAAA' +
      'P/2Q==',
  },
  jpegWithComment: {
    mediaType: 'image/jpeg',
    width: 23,
    height: 37,
    base64:
      '/9j/4AAQSkZJRgABAQAAAQABAAD//gAHaGVsbG//2wBDAAUDBAQEAwUEBAQFBQUGBwwIBwcHBw8LCwkMEQ8SEhEPER' +
      'ETFhwXExQaFRERGCEYGh0dHx8fExciJCIeJBweHx7/2wBDAQUFBQcGBw4ICA4eFBEUHh4eHh4eHh4eHh4eHh4eHh4e' +
      'Hh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh7/wAARCAAlABcDASIAAhEBAxEB/8QAFgABAQEAAAAAAAAAAA' +
      'AAAAAAAAUH/8QAFxABAQEBAAAAAAAAAAAAAAAAABNhAf/EABcBAQEBAQAAAAAAAAAAAAAAAAAHBAj/xAAbEQABBQEB' +
      'AAAAAAAAAAAAAAAAExUWUWECA//aAAwDAQACEQMRAD8AyW2ltTraW1jjmHTT9pRtonW0I5gftJ1tLan20tq8xzCLP2' +
      'lC2ifbQjmB+0n06U6CtI+dEwV7sU6AI+dBXuz/2Q==',
  },
  gif: {
    mediaType: 'image/gif',
    width: 53,
    height: 29,
    base64:
      'R0lGODlhNQAdAPQAAP8AAPYACe0AEuQAG9sAJNEALsgAN78AQLYASa0AUqQAW5sAZJIAbYkAdoAAf3YAiW0AkmQAm1' +
      'sApFIArUkAtkAAvzcAyC4A0SQA2xsA5BIA7QkA9gAA/4AAgAAAAAAAACH5BAAAAAAALAAAAAA1AB0AAAX+ICCOZGme' +
      'aIoGbOu+cCzPsmDfeK7vfM8PwKBwSCwaj0aCcslsOp/QKLRArVqv2Kx2qzV4v+CweEwukw/otHrNbrvfboR8Tq/b7/' +
      'g8PsHv+/+AgYKDggqGh4iJiouMjYwLkJGSk5SVlpeWDJqbnJ2en6ChoA2kpaanqKmqq6oOHa+wsbAOrrIdtLW2uq65' +
      'sg4PwMHCw8TFxsfGEMrLzM3Oz9DR0BHU1dbX2Nna29oS3t/g4eLj5OXkE+jp6uvs7e7v7hTy8/T19vf4+fgV/P3+/w' +
      'ADChwo0ILBgwgTKlzIsCHDCxAjSpxIsaLFixYxaNzIsaPHjyBDgsxAsqTJkygoU6pcqVKDy5cwY8qcSbMmzQ04c+rc' +
      'ybOnz58+OQgdSrSo0aNIkyINAQA7',
  },
  webpLossy: {
    mediaType: 'image/webp',
    width: 37,
    height: 23,
    base64:
      'UklGRogAAABXRUJQVlA4IHwAAAAwBQCdASolABcAPm00lkikIqIhJWgAgA2Jai2ACkJY38g/Emo/9qX9AAB6IBX3oi' +
      '1kBAD+9DzjzD8fk55aJLhIf/72Xvdl2QnwjN+hrY8iRd+WOvqxx0iVVF5l91JecPudaCLH55N+fSlf8+lK68y/68Z1' +
      'hZ+jBB4QIAAA',
  },
  webpLossless: {
    mediaType: 'image/webp',
    width: 41,
    height: 19,
    base64:
      'UklGRnIAAABXRUJQVlA4TGUAAAAvKIAEAJmM6H9souDR/4Ditm0c7r92kuvlayBtm8y/2t9ABQRF/o8Watu2YZSt1y' +
      's0lol3IsQJ4kYcMYgzzaacheon4tMWE6ANVZiyn7aCRkvuv4R5YgAxYhKC0kXyE1MRc/WPAQA=',
  },
  webpExtended: {
    mediaType: 'image/webp',
    width: 43,
    height: 17,
    base64:
      'UklGRuAAAABXRUJQVlA4WAoAAAAQAAAAKgAAEAAAQUxQSEcAAAABJ6CmbQM2VUx9C2BGRMCnoKiRJOVICBogA5dr/7' +
      'p2D/4R/VfYtm2TvZP2DPM0tmklEKFKYAEStQEvAIAgFdKwsE38T5+gAQBWUDggcgAAAPADAJ0BKisAEQA+kUKbSqWj' +
      'oiGlaZiwEglsAM+uIA3iv9dgF+eugMAA/u6mNTtWY5mzUll24lcVZ6Tln/xNGT/H/H/DLvf/devwc543H/EwirL2+f' +
      '9f+P7mHJ/6Gzd1P7/OuolNv97cXzJP/mhoAAAAAA==',
  },
} as const;
