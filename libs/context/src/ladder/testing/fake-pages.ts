/**
 * A stand-in page renderer for tests while @arbor/snapshots is not there: deterministic, fast,
 * one page per `charsPerPage` characters of the shape. Each page is a PNG whose header carries
 * the shape's size (what token formulas and limit checks read) and whose data is a hash of the
 * page's text, not pixels: fine for the ladder's logic, useless to a model.
 */
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { SNAPSHOT_SHAPES } from '../capabilities';
import { pngChunk } from '../../testing/images';
import type { RenderPages } from '../types';

export function fakePage(width: number, height: number, text: string): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.writeUInt8(8, 8);
  header.writeUInt8(2, 9);
  const digest = createHash('sha256').update(text).digest();
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(digest)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

export interface FakeRenderer {
  render: RenderPages;
  /** Texts rendered, in call order (to check pages come from the source text). */
  readonly calls: { text: string; shape: string }[];
}

export function fakeRenderer(): FakeRenderer {
  const calls: { text: string; shape: string }[] = [];
  const render: RenderPages = async (text, shapeName) => {
    calls.push({ text, shape: shapeName });
    const shape = SNAPSHOT_SHAPES[shapeName];
    if (shape === undefined) throw new Error(`unknown shape ${shapeName}`);
    const count = Math.max(1, Math.ceil(text.length / shape.charsPerPage));
    return Array.from({ length: count }, (_, i) =>
      fakePage(
        shape.width,
        shape.height,
        text.slice(i * shape.charsPerPage, (i + 1) * shape.charsPerPage),
      ),
    );
  };
  return { render, calls };
}
