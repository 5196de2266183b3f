/**
 * For any Arbor tree — random valid turns (tool rounds, parallel calls, thinking, images, empty
 * and structured tool results) hung on random turn ends, the tip moved to any turn end (one with
 * children of its own too), random checkpoints — exporting to each format and importing again
 * gives the same messages, active branch and (pi) checkpoints, with nothing skipped.
 */
import fc from 'fast-check';
import { arbTurn } from '@arbor/domain/testing/arbitraries';
import { counterDeps, newSession, ok } from '@arbor/domain/testing/session';
import { importSessionText } from '@arbor/importers';
import { EXPORT_FORMATS, exportSession } from './index';
import { commitImported, fromSession } from './testing/roundtrip';

const arbTree = fc.record({
  turns: fc.array(fc.tuple(arbTurn({ maxToolRounds: 2 }), fc.nat()), {
    minLength: 1,
    maxLength: 6,
  }),
  tipAt: fc.nat(),
  checkpoints: fc.array(fc.nat(), { maxLength: 3 }),
  title: fc.option(fc.string({ minLength: 1, maxLength: 20 }), { nil: null }),
});

describe('round trips of random trees', () => {
  it.each(EXPORT_FORMATS.map((f) => [f]))('→ %s → import: the same tree', (format) => {
    fc.assert(
      fc.property(arbTree, ({ turns, tipAt, checkpoints, title }) => {
        const session = newSession(counterDeps('m'));
        ok(session, { type: 'start', conversationId: 'c', title });
        const ends: string[] = [];
        for (const [messages, at] of turns) {
          const parentId = ends.length === 0 ? null : ends[at % ends.length];
          const r = ok(session, { type: 'commitTurn', parentId, messages });
          ends.push(r.tip);
        }
        ok(session, { type: 'moveTip', messageId: ends[tipAt % ends.length] });
        checkpoints.forEach((at, i) =>
          ok(session, {
            type: 'setCheckpoint',
            label: `cp-${i}`,
            messageId: ends[at % ends.length],
            replace: true,
          }),
        );
        const first = fromSession(session, title);
        const out = exportSession(format, first.source);
        const again = importSessionText(out.fileName, out.text, { format });
        expect(again.report.skipped).toEqual([]);
        expect(again.conversations).toHaveLength(1);
        const second = commitImported(again.conversations[0]);
        expect(second.failures).toEqual([]);
        expect(second.tree.messages).toEqual(first.tree.messages);
        expect(second.tree.activeBranch).toEqual(first.tree.activeBranch);
        // pi keeps one label per entry: the first checkpoint of a message, by label, is carried.
        const onePerMessage = first.tree.checkpoints.filter(
          (c, i, all) => all.findIndex((x) => x.messageId === c.messageId) === i,
        );
        if (format === 'pi') expect(second.tree.checkpoints).toEqual(onePerMessage);
        // What was not carried: Claude Code has no labels; pi wants a provider for a model.
        const lost = new Set(out.report.lost.map((n) => n.reason));
        expect([...lost].sort()).toEqual(
          format === 'pi'
            ? [
                ...(onePerMessage.length < first.tree.checkpoints.length
                  ? [
                      'checkpoint not carried: pi keeps one label per entry, and this message has one',
                    ]
                  : []),
                'provider not known from the model name: written as provider "unknown"',
              ]
            : first.tree.checkpoints.length > 0
              ? ['checkpoint label not carried: Claude Code session files have no labels']
              : [],
        );
      }),
      { numRuns: 60 },
    );
  });
});
