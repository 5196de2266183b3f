import fc from 'fast-check';
import { isProblemCode } from '../apps/api/src/problem/problem';
import {
  assistant,
  clientFor,
  type Client,
  msg,
  text,
  toolResult,
  toolUse,
  user,
} from './support/api';
import { ADMIN_KEY, type Harness, startHarness } from './support/harness';

type Body = Record<string, unknown>;
type Mutation = (body: Body) => unknown;

const FIELDS = ['turnId', 'parentId', 'expectedTip', 'messages'];

/** Mutations of a valid turn body: each returns a new value, never edits its input. */
const mutation = (): fc.Arbitrary<Mutation> =>
  fc.oneof(
    fc.constantFrom(...FIELDS).map((f) => (b: Body) => {
      const { [f]: _drop, ...rest } = b;
      return rest;
    }),
    fc
      .tuple(fc.constantFrom(...FIELDS), fc.anything())
      .map(([f, v]) => (b: Body) => ({ ...b, [f]: v })),
    fc.tuple(fc.string(), fc.anything()).map(([f, v]) => (b: Body) => ({ ...b, [f]: v })),
    fc.tuple(fc.nat(), fc.anything()).map(([i, v]) => (b: Body) => {
      const ms = [...(b.messages as unknown[])];
      ms[i % ms.length] = v;
      return { ...b, messages: ms };
    }),
    fc.tuple(fc.nat(), fc.string(), fc.anything()).map(([i, key, v]) => (b: Body) => {
      const ms = (b.messages as Body[]).map((m) => ({ ...m }));
      ms[i % ms.length][key || 'role'] = v;
      return { ...b, messages: ms };
    }),
    fc
      .tuple(fc.nat(), fc.string(), fc.dictionary(fc.string(), fc.anything()))
      .map(([i, type, extra]) => (b: Body) => {
        const ms = (b.messages as Body[]).map((m) => ({ ...m }));
        const m = ms[i % ms.length];
        const content = Array.isArray(m.content) ? (m.content as unknown[]) : [];
        m.content = [...content, { ...extra, type }];
        return { ...b, messages: ms };
      }),
    fc.nat().map((seed) => (b: Body) => {
      const ms = [...(b.messages as unknown[])];
      for (let i = ms.length - 1; i > 0; i--) {
        const j = (seed + i * 7) % (i + 1);
        [ms[i], ms[j]] = [ms[j], ms[i]];
      }
      return { ...b, messages: ms };
    }),
    fc.anything().map((v) => () => v),
  );

describe('fuzzing POST /turns: valid and read back, or a catalogued 4xx that appends nothing', () => {
  let h: Harness;
  let c: Client;
  let id: string;
  beforeAll(async () => {
    h = await startHarness();
    c = clientFor(h, (await h.createTenant('fuzz')).apiKey);
    id = await c.start();
  });
  afterAll(async () => {
    await h.destroy();
  });

  const position = async () =>
    (await h.call('GET', '/v1/admin/log', { key: ADMIN_KEY })).body.position as unknown;

  it('never answers 5xx', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(mutation(), { minLength: 1, maxLength: 3 }), async (muts) => {
        n++;
        const tip = (await c.conversation(id)).tip as string | null;
        const base: Body = {
          parentId: tip,
          messages: [
            user(`q${n}`),
            msg('assistant', [text('call'), toolUse(`t${n}`)]),
            msg('user', [toolResult(`t${n}`)]),
            assistant(`a${n}`),
          ],
        };
        let body: unknown = base;
        for (const m of muts) {
          if (typeof body !== 'object' || body === null || Array.isArray(body)) break;
          if (!Array.isArray((body as Body).messages) || (body as Body).messages === undefined)
            break;
          if (((body as Body).messages as unknown[]).length === 0) break;
          body = m(body as Body);
        }
        const before = await position();
        const r = await c.post(c.conv(id, '/turns'), body);
        expect(r.status).toBeLessThan(500);
        if (r.status === 201 || r.status === 200) {
          for (const mid of r.body.messageIds as string[]) {
            const stored = await c.get(c.conv(id, `/messages/${mid}`));
            expect(stored.status).toBe(200);
            expect(Array.isArray(stored.body.content)).toBe(true);
          }
          return;
        }
        expect(r.status).toBeGreaterThanOrEqual(400);
        expect(r.headers.get('content-type')).toContain('application/problem+json');
        expect(isProblemCode(String(r.body.code))).toBe(true);
        expect(await position()).toEqual(before);
      }),
      { numRuns: 150 },
    );
  }, 60_000);
});
