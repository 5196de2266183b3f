/**
 * The real renderer, when libs/snapshots is in the checkout: a real session's middle imaged onto
 * real PNG pages for Anthropic and OpenAI, a valid body, page sizes as the shape says, and the
 * pages rendered again on the next call byte for byte the same (they come from the source text,
 * deterministically). Skipped, and says so, when @arbor/snapshots is absent.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SnapshotDecision } from '@arbor/domain/compaction';
import { readImageSize } from '../tokens/image-size';
import type { ProviderName } from '../types';
import { checkBody } from '../validity';
import { assembleContext } from './assemble';
import { SNAPSHOT_SHAPES } from './capabilities';
import { counterIds } from './testing/builders';
import { loadRealWindows } from './testing/fixtures';
import type { RenderPages } from './types';

const SNAPSHOTS = path.resolve(__dirname, '../../../snapshots/src/index.ts');
const present = fs.existsSync(SNAPSHOTS);

async function realRenderer(): Promise<RenderPages> {
  const mod = (await import(SNAPSHOTS)) as { renderPages?: unknown };
  if (typeof mod.renderPages !== 'function') throw new Error('@arbor/snapshots has no renderPages');
  return mod.renderPages as RenderPages;
}

const window = loadRealWindows().find((w) =>
  w.file.startsWith('Users-dain-workspace-danieldemmel'),
);

(present ? describe : describe.skip)('snapshots rendered by @arbor/snapshots', () => {
  it.each<[ProviderName, string]>([
    ['anthropic', 'claude-sonnet-4-5'],
    ['openai-chat', 'gpt-4o'],
  ])(
    '%s: real pages, a valid body, the same bytes again',
    async (provider, model) => {
      const messages = window?.messages ?? [];
      const renderPages = await realRenderer();
      const input = {
        conversationId: 'real',
        provider,
        model,
        messages,
        decisions: [],
        budgetTokens: 32_000,
        mode: 'snapshot' as const,
        renderPages,
        newId: counterIds(),
      };
      const first = await assembleContext(input);
      const snapshots = first.newDecisions.filter(
        (d): d is SnapshotDecision => d.rung === 'snapshot',
      );
      expect(snapshots.length).toBeGreaterThan(0);
      expect(checkBody(provider, first.body as never, { model })).toEqual([]);
      const shape = SNAPSHOT_SHAPES[snapshots[0].shape];
      const pages = JSON.stringify(first.body).match(/iVBORw0KGgo[A-Za-z0-9+/=]+/g) ?? [];
      const pageSizes = pages.map((p) => readImageSize(p)).filter((s) => s?.width === shape.width);
      expect(pageSizes.length).toBe(snapshots.reduce((n, d) => n + d.pageCount, 0));
      expect(pageSizes.every((s) => s?.height === shape.height)).toBe(true);

      const again = await assembleContext({
        ...input,
        mode: 'auto',
        decisions: first.newDecisions,
        newId: counterIds('x'),
      });
      expect(again.newDecisions).toEqual([]);
      expect(JSON.stringify(again.body)).toBe(JSON.stringify(first.body));
    },
    120_000,
  );
});

if (!present) {
  it('skips the real-renderer test: libs/snapshots is not in this checkout', () => {
    expect(present).toBe(false);
  });
}
