/**
 * The real renderer: a real session's middle imaged onto real PNG pages by @arbor/snapshots for
 * Anthropic and OpenAI, a valid body, page sizes as the shape says, and the pages rendered again
 * on the next call byte for byte the same (they come from the source text, deterministically).
 */
import type { SnapshotDecision } from '@arbor/domain/compaction';
import { renderPages } from '@arbor/snapshots';
import { readImageSize } from '../tokens/image-size';
import type { ProviderName } from '../types';
import { checkBody } from '../validity';
import { assembleContext } from './assemble';
import { SNAPSHOT_SHAPES } from './capabilities';
import { counterIds } from './testing/builders';
import { loadRealWindows } from './testing/fixtures';
import type { RenderPages } from './types';

const window = loadRealWindows().find((w) =>
  w.file.startsWith('Users-dain-workspace-danieldemmel'),
);

describe('snapshots rendered by @arbor/snapshots', () => {
  it.each<[ProviderName, string]>([
    ['anthropic', 'claude-sonnet-4-5'],
    ['openai-chat', 'gpt-4o'],
  ])(
    '%s: real pages, a valid body, the same bytes again',
    async (provider, model) => {
      if (!window) throw new Error('the danieldemmel fixture is missing');
      const messages = window.messages;
      const input = {
        conversationId: 'real',
        provider,
        model,
        messages,
        decisions: [],
        budgetTokens: 32_000,
        mode: 'snapshot' as const,
        renderPages: renderPages as RenderPages,
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
