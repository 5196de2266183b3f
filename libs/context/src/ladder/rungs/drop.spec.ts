import type { DropDecision } from '@arbor/domain/compaction';
import type { Message } from '@arbor/domain/messages';
import { chain, text } from '../../testing/conversation';
import { checkBody } from '../../validity';
import { assembleContext } from '../assemble';
import { CannotFitError } from '../errors';
import { baseInput, counterIds, filler, session } from '../testing/builders';
import type { AssembleInput, Summarize } from '../types';

const messages = session({ turns: 8, steps: 2, resultWords: 300, answerWords: 200 });
const frozen = JSON.stringify(messages);
const bodyText = (body: unknown) => JSON.stringify(body);
const dropsOf = (r: { newDecisions: readonly { rung: string }[] }) =>
  r.newDecisions.filter((d): d is DropDecision => d.rung === 'drop');

async function full(input: AssembleInput): Promise<number> {
  const r = await assembleContext({ ...input, budgetTokens: 10_000_000 });
  return r.receipt.estimatedTokens;
}

describe('drop', () => {
  const input = baseInput(messages, { budgetTokens: 8_000 });

  it('drops the oldest part of the middle, says exactly what, and keeps the log', async () => {
    expect(await full(input)).toBeGreaterThan(2 * 8_000);
    const r = await assembleContext(input);
    expect(r.receipt.estimatedTokens).toBeLessThanOrEqual(r.receipt.targetTokens);
    expect(checkBody('anthropic', r.body as never)).toEqual([]);
    const drops = dropsOf(r);
    expect(drops).toHaveLength(1);
    const [d] = drops;
    // The oldest part of the middle: right after the head (system-less: the first prompt).
    expect(d.fromId).toBe(messages[1].id);
    expect(d.coveredIds).toEqual(messages.slice(1, 1 + d.coveredIds.length).map((m) => m.id));
    expect(d.droppedTokens).toBeGreaterThan(0);
    const receipt = r.receipt.rungs.find((x) => x.rung === 'drop');
    expect(receipt).toMatchObject({ applied: true, decisionIds: [d.id] });
    expect(receipt?.details).toMatchObject({
      messages: d.coveredIds.length,
      tokens: d.droppedTokens,
      fromId: d.fromId,
      toId: d.toId,
    });
    expect(receipt?.reason).toContain(`${d.fromId} … ${d.toId} (~${d.droppedTokens} tokens)`);
    const body = bodyText(r.body);
    // Placeholders of version 2 name no message id (a fork's copy has other ids).
    expect(d.placeholders).toBe(2);
    expect(body).toContain(`${d.coveredIds.length} messages, ~${d.droppedTokens} tokens`);
    expect(body).not.toContain(d.fromId);
    expect(body).toContain(`~${d.droppedTokens} tokens`);
    // Nothing of the dropped messages is sent; the source is untouched.
    for (const id of d.coveredIds) {
      const m = messages.find((x) => x.id === id) as Message;
      const t = m.content.find((b) => b.type === 'text');
      if (t?.type === 'text') expect(body).not.toContain(t.text);
    }
    expect(JSON.stringify(messages)).toBe(frozen);
    // In force, the same bytes and nothing new.
    const again = await assembleContext({
      ...input,
      decisions: r.newDecisions,
      newId: counterIds('x'),
    });
    expect(again.newDecisions).toEqual([]);
    expect(bodyText(again.body)).toBe(body);
  });

  it('runs last: after the summary, and in its place when the summarizer fails', async () => {
    const failing: Summarize = async () => {
      throw new Error('down');
    };
    const r = await assembleContext({ ...input, summarize: failing });
    const order = r.receipt.rungs.map((x) => x.rung);
    expect(order.indexOf('summary')).toBeLessThan(order.lastIndexOf('drop'));
    expect(r.receipt.rungs.find((x) => x.rung === 'summary')?.reason).toMatch(/summarizer failed/);
    expect(dropsOf(r)).toHaveLength(1);
  });

  it('is refused by allowDrop: false (cannot_fit instead)', async () => {
    const attempt = assembleContext({ ...input, allowDrop: false });
    await expect(attempt).rejects.toBeInstanceOf(CannotFitError);
  });

  it('appends after a drop in force, so the earlier bytes stay', async () => {
    const first = await assembleContext(input);
    const longer = session({ turns: 12, steps: 2, resultWords: 300, answerWords: 200 });
    // Same ids for the shared part (the builder is deterministic).
    expect(longer.slice(0, messages.length).map((m) => m.id)).toEqual(messages.map((m) => m.id));
    const next = await assembleContext({
      ...input,
      messages: longer,
      decisions: first.newDecisions,
      previousTipId: messages[messages.length - 1].id,
      newId: counterIds('n'),
    });
    const [old] = dropsOf(first);
    const [added] = dropsOf(next);
    expect(added.coveredIds[0]).toBe(longer[longer.findIndex((m) => m.id === old.toId) + 1].id);
    expect(bodyText(next.body)).toContain(
      `${old.coveredIds.length} messages, ~${old.droppedTokens} tokens`,
    );
    // A decision recorded before version 2 keeps its text with the ids.
    const legacy = await assembleContext({
      ...input,
      messages: longer,
      decisions: first.newDecisions.map(({ placeholders: _v, ...d }) => d),
      previousTipId: messages[messages.length - 1].id,
      newId: counterIds('n'),
    });
    expect(bodyText(legacy.body)).toContain(`(${old.fromId} … ${old.toId})`);
    expect(next.receipt.notApplied.map((n) => n.decisionId)).not.toContain(old.id);
  });

  it('may drop the first prompt, never the current one, system or pinned messages', async () => {
    const specs: Message[] = chain([
      { role: 'system', content: [text('Be terse.')] },
      { role: 'user', content: [text(`First: ${filler(3000, 1)}`)] },
      { role: 'assistant', content: [text('Done.')] },
      { role: 'user', content: [text(`Keep this. ${filler(50, 2)}`)] },
      { role: 'assistant', content: [text(filler(3000, 3))] },
      { role: 'user', content: [text('Now the next step.')] },
    ]).map((m, i) => (i === 3 ? { ...m, pinned: true } : m));
    const r = await assembleContext(baseInput(specs, { budgetTokens: 6_000 }));
    expect(checkBody('anthropic', r.body as never)).toEqual([]);
    const covered = dropsOf(r).flatMap((d) => d.coveredIds);
    expect(covered).toContain(specs[1].id);
    for (const kept of [specs[0], specs[3], specs[5]]) expect(covered).not.toContain(kept.id);
  });

  it('leaves cannot_fit for a turn in progress over the target, with the numbers', async () => {
    const huge = chain([
      ...session({ turns: 3, steps: 1, resultWords: 50 }).map((m) => ({
        role: m.role,
        content: m.content,
      })),
      { role: 'user', content: [text(`Read this: ${filler(6000, 9)}`)] },
    ] as never);
    const attempt = assembleContext(baseInput(huge, { budgetTokens: 8_000, system: 'Be terse.' }));
    await expect(attempt).rejects.toBeInstanceOf(CannotFitError);
    const error = (await attempt.catch((e: unknown) => e)) as CannotFitError;
    expect(error.floor.systemTokens).toBeGreaterThan(0);
    expect(error.floor.protectedTailTokens).toBeGreaterThan(error.targetTokens);
    expect(error.floor.protectedTailTokens).toBeLessThanOrEqual(error.estimatedTokens);
    expect(error.message).toContain(`protected tail ${error.floor.protectedTailTokens}`);
  });
});
