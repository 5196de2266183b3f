import { renderPages } from '@arbor/snapshots';
import { type AssembleResult, CannotFitError } from '@arbor/context';
import { session } from '@arbor/context/ladder/testing/builders';
import { readConfig } from '../config/config';
import { type AssemblyDone, type AssemblyInput, errorOf } from './assembly';
import { AssemblyPool } from './assembly-pool';

/** A worker thread and the request loop run the same assembly: the same bytes come out. */
describe('AssemblyPool', () => {
  const messages = session({ turns: 8, steps: 3, resultWords: 600, system: true });
  const input: AssemblyInput = {
    conversationId: 'conv1',
    cacheScope: 'tenant1/conv1',
    provider: 'gemini',
    model: 'gemini-2.5-pro',
    messages,
    decisions: [],
    budgetTokens: 30_000,
    mode: 'snapshot',
    capabilities: { vision: true },
  };
  const poolOf = (threads: number) =>
    new AssemblyPool(
      readConfig({ ARBOR_HEAVY_THREADS: String(threads) }),
      (text, shape) => renderPages(text, shape),
      null,
    );
  const pooled = poolOf(1);
  const inProcess = poolOf(0);
  afterAll(() => pooled.onModuleDestroy());

  const done = async (pool: AssemblyPool, i: AssemblyInput): Promise<AssemblyDone> => {
    const outcome = await pool.run(i);
    if (!outcome.ok) throw new Error(`assembly failed: ${outcome.failure.kind}`);
    return outcome;
  };
  /** The JSON text with this call's fresh decision ids (random UUIDs) named by their order. */
  const normalized = (r: AssembleResult): string => {
    let json = JSON.stringify(r);
    r.newDecisions.forEach((d, k) => {
      json = json.split(d.id).join(`decision-${k}`);
    });
    return json;
  };

  it('runs in a worker thread', () => {
    expect(pooled.threads).toBe(1);
    expect(inProcess.threads).toBe(0);
  });

  it('a new snapshot decision: the same body, pages and receipt as in process', async () => {
    const [a, b] = [await done(inProcess, input), await done(pooled, input)];
    expect(a.result.newDecisions.some((d) => d.rung === 'snapshot')).toBe(true);
    expect(b.renderedPages).toBe(a.renderedPages);
    expect(a.renderedPages).toBeGreaterThan(0);
    expect(b.sourceBytes).toBe(a.sourceBytes);
    expect(normalized(b.result)).toBe(normalized(a.result));
  });

  it('the decisions in force again (as a reproduction runs): byte for byte, hash included', async () => {
    const first = await done(inProcess, input);
    const again: AssemblyInput = {
      ...input,
      mode: 'auto',
      decisions: first.result.newDecisions,
      calibration: first.result.receipt.calibration,
      replayOnly: true,
    };
    const [a, b] = [await done(inProcess, again), await done(pooled, again)];
    expect(a.result.newDecisions).toEqual([]);
    expect(JSON.stringify(b.result)).toBe(JSON.stringify(a.result));
    expect(b.bodyHash).toBe(a.bodyHash);
    expect(JSON.stringify(a.result.body)).toContain('inlineData');
  });

  it("a ladder error comes back as the ladder's own error", async () => {
    const tiny = { ...input, allowDrop: false, budgetTokens: 4200, maxTokens: 4096 };
    const [a, b] = [await pooled.run(tiny), await inProcess.run(tiny)];
    const ids = (o: unknown) =>
      JSON.stringify(o).replace(/[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}/g, 'id');
    expect(ids(a)).toBe(ids(b));
    expect(a.ok || a.failure.kind).toBe('cannot_fit');
    if (!a.ok) expect(errorOf(a.failure)).toBeInstanceOf(CannotFitError);
  });
});
