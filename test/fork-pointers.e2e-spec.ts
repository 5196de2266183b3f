import {
  assistant,
  type AuditEvent,
  clientFor,
  type Client,
  msg,
  text,
  toolResult,
  toolUse,
  user,
} from './support/api';
import { type Harness, startHarness } from './support/harness';

const bigResult = (n: number) => 'line of tool output that nobody will reread\n'.repeat(n);

/** Every string anywhere inside `value` (keys of objects included). */
const stringsIn = (value: unknown, into: string[] = []): string[] => {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsIn(v, into);
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      into.push(k);
      stringsIn(v, into);
    }
  }
  return into;
};

/**
 * The message ids an event of a fork's stream names that belong to the source conversation. Its
 * lineage is the one place that must name them: `ConversationStarted.forkedFrom.messageId` and
 * `ForkedFrom` (the fork point and the id map's keys). Anything else naming a source id is a
 * pointer into the other conversation.
 */
const sourceIdsNamed = (e: AuditEvent, sourceIds: ReadonlySet<string>): string[] => {
  let data = e.data;
  if (e.type === 'ForkedFrom') return [];
  if (e.type === 'ConversationStarted') {
    const { forkedFrom: _lineage, ...rest } = e.data as { forkedFrom?: unknown };
    data = rest;
  }
  return stringsIn(data).filter((s) => sourceIds.has(s));
};

/**
 * invariant 4: a fork copies the path with fresh ids; checkpoints and compactions on the copied
 * path are remapped or dropped explicitly, never left pointing into the other conversation.
 * The source here has both on the path when it is forked (elision decisions recorded by context
 * calls, and a checkpoint), and a checkpoint off the path.
 */
describe('a fork never points into its source', () => {
  let h: Harness;
  let api: Client;
  let source: string;
  let fork: string;
  let idMap: Record<string, string>;
  let sourceEvents: AuditEvent[];
  let forkEvents: AuditEvent[];
  let sourceIds: Set<string>;

  beforeAll(async () => {
    h = await startHarness();
    api = clientFor(h, (await h.createTenant('fork-pointers')).apiKey);
    source = await api.start({ title: 'source' });
    let tip: string | null = (
      await api.turn(source, null, [user('The task: keep the goal in mind.'), assistant('Sure.')])
    ).tip;
    const first = tip;
    for (let i = 0; i < 8; i++) {
      tip = (
        await api.turn(source, tip, [
          user(`step ${i}`),
          msg('assistant', [text(`running ${i}`), toolUse(`call_${i}`, 'bash', { i })]),
          msg('user', [toolResult(`call_${i}`, bigResult(300))]),
          assistant(`step ${i} done`),
        ])
      ).tip;
    }
    // A checkpoint on the copied path, and one on a branch the fork does not copy.
    await api.checkpoint(source, 'on-path', tip as string);
    const side = await api.turn(source, first, [user('a side question'), assistant('an aside')]);
    await api.checkpoint(source, 'off-path', side.tip);
    await api.moveTip(source, tip as string);
    // Compaction decisions on the copied path: old tool results elided to fit a small budget.
    for (const provider of ['anthropic', 'openai-chat']) {
      const r = await api.post(api.conv(source, '/context'), {
        provider,
        model: 'm-1',
        budgetTokens: 6_000,
      });
      expect(r.status).toBe(200);
    }
    const f = await api.post(api.conv(source, '/forks'), { title: 'the fork' });
    expect(f.status).toBe(201);
    fork = f.body.id as string;
    idMap = f.body.idMap as Record<string, string>;
    sourceEvents = await api.events(source);
    forkEvents = await api.events(fork);
    sourceIds = new Set(
      sourceEvents
        .filter((e) => e.type === 'MessageAppended')
        .map((e) => (e.data as { message: { id: string } }).message.id),
    );
  });
  afterAll(async () => {
    await h.destroy();
  });

  it('(the source really has compactions and a checkpoint on the copied path when it is forked)', () => {
    const onPath = new Set(Object.keys(idMap));
    const decisionIds = sourceEvents
      .filter((e) => e.type === 'CompactionApplied')
      .flatMap((e) => stringsIn(e.data).filter((s) => onPath.has(s)));
    expect(decisionIds.length).toBeGreaterThan(0);
    const checkpoints = sourceEvents.filter((e) => e.type === 'CheckpointSet');
    expect(checkpoints.map((e) => onPath.has((e.data as { messageId: string }).messageId))).toEqual(
      [true, false],
    );
    expect(sourceIds.size).toBeGreaterThan(Object.keys(idMap).length);
  });

  it('no event of the fork names a source message id, except its lineage', () => {
    const pointers = forkEvents.flatMap((e) =>
      sourceIdsNamed(e, sourceIds).map((id) => `${e.revision} ${e.type} → ${id}`),
    );
    expect(pointers).toEqual([]);
    // The check sees what it must: the lineage names the source, the copy names the fork ids.
    const lineage = forkEvents.find((e) => e.type === 'ForkedFrom');
    expect(stringsIn(lineage?.data).filter((s) => sourceIds.has(s)).length).toBeGreaterThan(0);
    const copied = forkEvents
      .filter((e) => e.type === 'MessageAppended')
      .map((e) => (e.data as { message: { id: string } }).message.id);
    expect(copied).toEqual(Object.values(idMap));
  });

  it('every compaction or checkpoint in the fork names fork messages only', () => {
    const forkIds = new Set(Object.values(idMap));
    for (const e of forkEvents) {
      if (!e.type.startsWith('Compaction') && !e.type.startsWith('Checkpoint')) continue;
      const ids = stringsIn(e.data).filter((s) => sourceIds.has(s) || forkIds.has(s));
      expect({ type: e.type, ids: ids.filter((s) => !forkIds.has(s)) }).toEqual({
        type: e.type,
        ids: [],
      });
    }
    const cps = forkEvents.filter((e) => e.type === 'CheckpointSet').map((e) => e.data);
    expect(cps).toEqual([{ label: 'on-path', messageId: expect.any(String) }]);
    expect(forkIds.has((cps[0] as { messageId: string }).messageId)).toBe(true);
  });

  it('a context built on the fork names no source message and no source conversation', async () => {
    const r = await api.post(api.conv(fork, '/context'), {
      provider: 'anthropic',
      model: 'm-1',
      budgetTokens: 6_000,
    });
    expect(r.status).toBe(200);
    const body = JSON.stringify(r.body.body);
    // The carried elisions are there, in texts that name no conversation at all.
    expect(body).toContain('[elided: result of bash');
    expect(body).not.toContain(source);
    expect(body).not.toContain(fork);
    expect([...sourceIds].filter((id) => body.includes(id))).toEqual([]);
  });
});
