import { base64ByteLength, readImageSize } from '../tokens/image-size';
import type { ProviderLimits } from './limits';
import { type Violation, violation } from './violations';

export interface ImageRef {
  path: string;
  base64: string;
}

const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(2)} MB`;

export function dataUrlPayload(url: string): string | null {
  const match = /^data:[^;,]+;base64,/.exec(url);
  return match ? url.slice(match[0].length) : null;
}

export function checkImages(images: readonly ImageRef[], limits: ProviderLimits): Violation[] {
  const out: Violation[] = [];
  if (images.length > limits.maxImages) {
    out.push(
      violation(
        'too_many_images',
        images[limits.maxImages].path,
        `${images.length} images in one request; the limit is ${limits.maxImages}`,
      ),
    );
  }
  const sideLimit =
    limits.manyImages && images.length > limits.manyImages.threshold
      ? Math.min(limits.manyImages.maxImageSide, limits.maxImageSide ?? Infinity)
      : limits.maxImageSide;
  let total = 0;
  for (const image of images) {
    const decoded = base64ByteLength(image.base64);
    total += decoded;
    const measured = limits.imageBytesMeasure === 'base64' ? image.base64.length : decoded;
    if (measured > limits.maxImageBytes) {
      out.push(
        violation(
          'image_too_large',
          image.path,
          `image is ${mb(measured)} (${limits.imageBytesMeasure}); the limit is ${mb(limits.maxImageBytes)}`,
        ),
      );
    }
    if (sideLimit !== undefined) {
      const size = readImageSize(image.base64);
      if (size && Math.max(size.width, size.height) > sideLimit) {
        out.push(
          violation(
            'image_dimensions_too_large',
            image.path,
            `image is ${size.width}×${size.height} px; the limit is ${sideLimit} px a side` +
              (sideLimit !== limits.maxImageSide
                ? ` with more than ${limits.manyImages?.threshold} images`
                : ''),
          ),
        );
      }
    }
  }
  if (limits.maxTotalImageBytes !== undefined && total > limits.maxTotalImageBytes) {
    out.push(
      violation(
        'images_total_too_large',
        '$',
        `images total ${mb(total)}; the limit is ${mb(limits.maxTotalImageBytes)} per request`,
      ),
    );
  }
  return out;
}

export function checkRequestSize(body: unknown, limits: ProviderLimits): Violation[] {
  if (limits.maxRequestBytes === undefined) return [];
  const bytes = Buffer.byteLength(JSON.stringify(body), 'utf8');
  return bytes > limits.maxRequestBytes
    ? [
        violation(
          'request_too_large',
          '$',
          `request body is ${mb(bytes)}; the limit is ${mb(limits.maxRequestBytes)}`,
        ),
      ]
    : [];
}

/** Tool-call arguments repeat on every assembly; bounded: short texts only, cleared when full. */
const JSON_OBJECT_MEMO = new Map<string, boolean>();
const MEMO_TEXT_CHARS = 512;
const MEMO_ENTRIES = 10_000;

function parsesAsObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

export function isJsonObjectText(text: string): boolean {
  if (text.length > MEMO_TEXT_CHARS) return parsesAsObject(text);
  const known = JSON_OBJECT_MEMO.get(text);
  if (known !== undefined) return known;
  const answer = parsesAsObject(text);
  if (JSON_OBJECT_MEMO.size >= MEMO_ENTRIES) JSON_OBJECT_MEMO.clear();
  JSON_OBJECT_MEMO.set(text, answer);
  return answer;
}
