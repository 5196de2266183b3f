/** Rung 2: images → short text, for room or for the provider's image limits (even when it fits). */
import type { ImageStripDecision, StrippedImage } from '@arbor/domain/compaction';
import { type Base64ImageBlock, type Block, isBase64Image } from '@arbor/domain/messages';
import { base64ByteLength, readImageSize } from '../../tokens/image-size';
import { imageTokens } from '../../tokens/image-tokens';
import { countTextTokens } from '../../tokens/text';
import { strippedImageText } from '../placeholders';
import { type LadderContext, type LadderState, fitsTarget } from '../state';
import { type Provisional, type RungRunner, commit, noop } from './common';

interface ImageRef {
  image: StrippedImage;
  base64Length: number;
  side: number;
  saving: number;
}

function envelopeBytes(ctx: LadderContext): number {
  const tools = ctx.input.tools === undefined ? 0 : JSON.stringify(ctx.input.tools).length;
  return 1024 + (ctx.input.system?.length ?? 0) + tools;
}

/** Share of `maxRequestBytes` the ladder aims under (its byte count is an estimate). */
const REQUEST_BYTES_MARGIN = 0.95;

export function imageLimitProblems(ctx: LadderContext, state: LadderState): string[] {
  const limits = ctx.limits;
  const m = state.measure;
  const problems: string[] = [];
  const count = m.images;
  if (count > limits.maxImages) problems.push(`${count} images > ${limits.maxImages}`);
  const largest = limits.imageBytesMeasure === 'base64' ? m.maxImageBase64 : m.maxImageBytes;
  if (largest > limits.maxImageBytes) problems.push(`an image over ${limits.maxImageBytes} bytes`);
  let side = limits.maxImageSide;
  if (limits.manyImages !== undefined && count > limits.manyImages.threshold) {
    side = Math.min(side ?? Infinity, limits.manyImages.maxImageSide);
  }
  if (side !== undefined && m.maxImageSide > side) {
    problems.push(`an image over ${side} px a side`);
  }
  if (
    limits.maxTotalImageBytes !== undefined &&
    state.measure.imageBytes > limits.maxTotalImageBytes
  ) {
    problems.push(`images total over ${limits.maxTotalImageBytes} bytes`);
  }
  const bytes = state.measure.jsonBytes + envelopeBytes(ctx);
  if (
    limits.maxRequestBytes !== undefined &&
    bytes > limits.maxRequestBytes * REQUEST_BYTES_MARGIN
  ) {
    problems.push(`request of ~${bytes} bytes near the ${limits.maxRequestBytes} limit`);
  }
  return problems;
}

function imageRef(
  ctx: LadderContext,
  messageId: string,
  path: string,
  block: Base64ImageBlock,
): ImageRef {
  const data = block.source.data;
  const size = readImageSize(data);
  const image: StrippedImage = {
    messageId,
    path,
    mediaType: block.source.media_type,
    bytes: base64ByteLength(data),
    width: size?.width ?? null,
    height: size?.height ?? null,
  };
  const tokens = imageTokens(size, ctx.input.provider, ctx.input.model);
  const placeholder = countTextTokens(strippedImageText(null, image));
  return {
    image,
    base64Length: data.length,
    side: size === null ? 0 : Math.max(size.width, size.height),
    saving: tokens - placeholder,
  };
}

function collectImages(ctx: LadderContext, state: LadderState): ImageRef[] {
  const out: ImageRef[] = [];
  state.items.forEach((item, i) => {
    if (item.kind !== 'source' || state.measure.stats[i].images === 0) return;
    const id = item.message.id;
    item.message.content.forEach((block: Block, k) => {
      if (block.type === 'image' && isBase64Image(block))
        out.push(imageRef(ctx, id, `content[${k}]`, block));
      if (block.type === 'tool_result' && typeof block.content !== 'string') {
        block.content.forEach((inner, j) => {
          if (inner.type === 'image' && isBase64Image(inner)) {
            out.push(imageRef(ctx, id, `content[${k}].content[${j}]`, inner));
          }
        });
      }
    });
  });
  return out;
}

function limitStrips(ctx: LadderContext, state: LadderState, images: ImageRef[]): Set<number> {
  const limits = ctx.limits;
  const strip = new Set<number>();
  const pages = state.measure.stats.filter((_, i) => state.items[i].kind !== 'source');
  let count = images.length + pages.reduce((n, s) => n + s.images, 0);
  let total = pages.reduce((n, s) => n + s.imageBytes, 0);
  for (const img of images) total += img.image.bytes;
  let bytes = state.measure.jsonBytes + envelopeBytes(ctx);
  const take = (k: number) => {
    if (strip.has(k)) return;
    strip.add(k);
    count--;
    total -= images[k].image.bytes;
    bytes -= images[k].base64Length;
  };
  images.forEach((img, k) => {
    const measured = limits.imageBytesMeasure === 'base64' ? img.base64Length : img.image.bytes;
    if (measured > limits.maxImageBytes) take(k);
    if (limits.maxImageSide !== undefined && img.side > limits.maxImageSide) take(k);
  });
  for (let k = 0; k < images.length && count > limits.maxImages; k++) take(k);
  const many = limits.manyImages;
  if (many !== undefined) {
    for (let k = 0; k < images.length && count > many.threshold; k++) {
      if (images[k].side > many.maxImageSide) take(k);
    }
  }
  const maxTotal = limits.maxTotalImageBytes;
  if (maxTotal !== undefined) {
    for (let k = 0; k < images.length && total > maxTotal; k++) take(k);
  }
  if (limits.maxRequestBytes !== undefined) {
    const max = limits.maxRequestBytes * REQUEST_BYTES_MARGIN;
    for (let k = 0; k < images.length && bytes > max; k++) take(k);
  }
  return strip;
}

export const stripImages: RungRunner = async (ctx, state, options) => {
  const images = collectImages(ctx, state);
  if (images.length === 0) return noop('strip_images', state, options, 'no image to strip');
  const strip = limitStrips(ctx, state, images);
  const forLimits = strip.size;
  let saved = images.reduce((n, img, k) => n + (strip.has(k) ? img.saving : 0), 0);
  const keep = ctx.caps.keepImages;
  const remaining = images.map((_, k) => k).filter((k) => !strip.has(k));
  const older = remaining.slice(0, Math.max(0, remaining.length - keep));
  for (const k of older) {
    if (!options.force && fitsTarget(ctx, state.measure.raw - saved)) break;
    strip.add(k);
    saved += images[k].saving;
  }
  if (strip.size === 0) {
    return noop(
      'strip_images',
      state,
      options,
      `no image beyond the newest ${keep} to strip, and no image limit broken`,
    );
  }
  const forRoom = strip.size - forLimits;
  const trigger = forRoom === 0 && !options.force ? 'image_limits' : options.trigger;
  const decision: Provisional<ImageStripDecision> = {
    id: ctx.input.newId(),
    rung: 'strip_images',
    trigger,
    provider: ctx.input.provider,
    model: ctx.input.model,
    images: [...strip].sort((a, b) => a - b).map((k) => images[k].image),
  };
  const why = [
    forLimits > 0 ? `${forLimits} for the provider's image limits` : '',
    forRoom > 0 ? `${forRoom} beyond the newest ${keep} for room` : '',
  ].filter((s) => s !== '');
  return commit(
    ctx,
    state,
    { ...options, trigger },
    [decision],
    `stripped ${strip.size} image(s): ${why.join('; ')}`,
    { images: strip.size, forLimits, forRoom },
  );
};
