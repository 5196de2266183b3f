import { type Client, exchange, toolTurn, type TurnResult } from './api';
import { ADMIN_KEY, type Harness } from './harness';

/**
 * A scripted workload that touches every kind of write the conversation API has: turns with tool
 * loops, branches (edited prompts and tip moves), forks (and forks of forks), checkpoints (set,
 * replaced, rewound, dropped by a resume), resumes, failures and retries, idempotent replays.
 * Split in two phases so a test can look at the log between them.
 */
export interface WorkloadState {
  main: string;
  t1: TurnResult;
  t2: TurnResult;
  t3: TurnResult;
  t4: TurnResult;
  fork1: string;
  fork1Tip: string;
  /** Where fork1 was copied to (the end of the copied path). */
  fork1Base: string;
}

const ok = (what: string, status: number, expected: number) => {
  if (status !== expected) throw new Error(`${what}: expected ${expected}, got ${status}`);
};

export const workloadPhase1 = async (c: Client, tag: string): Promise<WorkloadState> => {
  const main = await c.start({ id: `${tag}-main`, title: `main of ${tag}`, metadata: { tag } });
  const t1 = await c.turn(main, null, toolTurn(`${tag}1`), { turnId: `${tag}-t1` });
  const t2 = await c.turn(main, t1.tip, exchange(`${tag}2`));
  const t3 = await c.turn(main, t1.tip, exchange(`${tag}3 edited`));
  await c.checkpoint(main, 'cp1', t1.tip);
  await c.checkpoint(main, 'cp2', t2.tip);
  await c.checkpoint(main, 'cp3', t3.tip);
  await c.moveTip(main, t2.tip);
  ok('failure', (await c.post(c.conv(main, '/failures'), { input: tag, error: 'e1' })).status, 201);
  const f = await c.post(c.conv(main, '/forks'), { messageId: t2.tip, title: `fork of ${tag}` });
  ok('fork', f.status, 201);
  const fork1 = f.body.id as string;
  const ft = await c.turn(fork1, f.body.idMap[t2.tip], toolTurn(`${tag}f`, 2));
  const t4 = await c.turn(main, t2.tip, toolTurn(`${tag}4`, 3));
  // An idempotent replay writes nothing.
  const replay = await c.post(c.conv(main, '/turns'), {
    turnId: `${tag}-t1`,
    parentId: null,
    messages: toolTurn(`${tag}1`),
  });
  ok('replay', replay.status, 200);
  return { main, t1, t2, t3, t4, fork1, fork1Tip: ft.tip, fork1Base: f.body.idMap[t2.tip] };
};

export const workloadPhase2 = async (c: Client, tag: string, s: WorkloadState): Promise<void> => {
  const rw = await c.post(c.conv(s.main, '/checkpoints/cp1/rewind'), { digest: `${tag} digest` });
  ok('rewind', rw.status, 200);
  const t5 = await c.turn(s.main, s.t1.tip, exchange(`${tag}5`));
  await c.turn(s.main, t5.tip, exchange(`${tag}6`));
  ok(
    'replace',
    (
      await c.post(c.conv(s.main, '/checkpoints'), {
        label: 'cp2',
        messageId: t5.tip,
        replace: true,
      })
    ).status,
    201,
  );
  ok('resume', (await c.post(c.conv(s.main, '/resume'), { keepMessages: 2 })).status, 200);
  ok('dropped', (await c.post(c.conv(s.main, '/checkpoints/cp1/rewind'), {})).status, 409);
  ok(
    'failure',
    (await c.post(c.conv(s.main, '/failures'), { input: [1], error: null })).status,
    201,
  );
  await c.checkpoint(s.fork1, 'f-cp', s.fork1Tip);
  const f2 = await c.post(c.conv(s.fork1, '/forks'), {});
  ok('fork2', f2.status, 201);
  await c.moveTip(s.fork1, s.fork1Base);
  const back = await c.post(c.conv(s.fork1, '/checkpoints/f-cp/rewind'), { digest: 'back' });
  ok('rewind fork', back.status, 200);
  await c.turn(f2.body.id, undefined, exchange(`${tag}g`));
  // A second conversation with a longer chain, a token-limited resume and a pending failure.
  const other = await c.start({ title: null });
  let tip: string | null = null;
  for (let i = 0; i < 6; i++) {
    const t: TurnResult = await c.turn(
      other,
      tip,
      i % 2 ? toolTurn(`${tag}o${i}`) : exchange(`${tag}o${i}`),
    );
    if (i === 2) await c.checkpoint(other, 'mid', t.tip);
    tip = t.tip;
  }
  ok('resume2', (await c.post(c.conv(other, '/resume'), { keepTokens: 40 })).status, 200);
  ok(
    'failure2',
    (await c.post(c.conv(other, '/failures'), { input: 'o', error: 'e' })).status,
    201,
  );
};

/** Waits until the projector has applied everything in the log. */
export const settle = async (h: Harness, timeoutMs = 10_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const head = (await h.call('GET', '/v1/admin/log', { key: ADMIN_KEY })).body.position as
      string | null;
    const p = (await h.call('GET', '/v1/admin/projections', { key: ADMIN_KEY })).body.position as
      string | null;
    if (head === null || (p !== null && BigInt(p) >= BigInt(head))) return;
    if (Date.now() > deadline) throw new Error(`projections stuck at ${p}, head ${head}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};
