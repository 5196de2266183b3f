/**
 * The sealing's CPU cost per event (no disk): seal and open of MessageAppended events of about
 * 1.5 KB of text, against JSON.stringify + JSON.parse of the same event (what any store pays).
 * `node -r @swc-node/register bench/seal-cost.ts [events]`
 */
import { randomBytes } from 'node:crypto';
import { openData, sealData } from '@arbor/event-store/crypto';

const n = Number(process.argv[2] ?? 20_000);
const key = randomBytes(32);
const data = (i: number) => ({
  message: {
    id: `m${i}`,
    parentId: i === 0 ? null : `m${i - 1}`,
    role: 'assistant',
    content: [{ type: 'text', text: `line ${i} `.repeat(150) }],
    turnId: `t${i}`,
    createdAt: '2026-01-01T00:00:00.000Z',
  },
});
const events = Array.from({ length: n }, (_, i) => data(i));
const time = (f: () => void): number => {
  const t = process.hrtime.bigint();
  f();
  return Number(process.hrtime.bigint() - t) / 1e3 / n;
};
for (let rep = 0; rep < 3; rep++) {
  const json = time(() => {
    for (const e of events) JSON.parse(JSON.stringify(e));
  });
  const sealed: unknown[] = [];
  const seal = time(() => {
    for (let i = 0; i < n; i++)
      sealed.push(
        JSON.parse(
          JSON.stringify(sealData('MessageAppended', events[i], key, 'conv-t.c', BigInt(i))),
        ),
      );
  });
  const open = time(() => {
    for (let i = 0; i < n; i++) openData('MessageAppended', sealed[i], key, 'conv-t.c', BigInt(i));
  });
  console.log(
    `rep ${rep}: json round trip ${json.toFixed(1)} µs/event; seal+json ${seal.toFixed(1)} µs; open ${open.toFixed(1)} µs`,
  );
}
