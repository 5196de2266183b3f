/**
 * Where the µs of one append go, in process: the composed log (SQLite, hash chain, sealing,
 * write-side snapshots) committing turns of one conversation as bench:peers does, then each
 * layer's work timed alone on the same turns (domain decide, chain hashing, sealing, the row's
 * JSON, the insert; `--whole` skips these, so a profile holds only the appends). Run it under the profiler for the whole picture:
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof -r @swc-node/register bench/append-profile.ts [--turns 3000] [--whole]
 *   node -r @swc-node/register bench/lib/cpuprofile.ts /tmp/prof/<file>.cpuprofile
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { chainHash } from '@arbor/audit';
import { decide, foldEvents } from '@arbor/domain';
import { canonicalJson } from '@arbor/domain/fingerprint';
import { conversationStream } from '@arbor/event-store';
import { sealData } from '@arbor/event-store/crypto';
import { createWriter, openStore, toEventData } from './lib/arbor-session';
import { parsedTurn as parsed, rawTurn } from './lib/turns';
import { fmt, table } from './lib/report';

const TENANT = 'bench-tenant';

const main = async () => {
  const argv = process.argv.slice(2);
  const at = argv.indexOf('--turns');
  const turns = at >= 0 ? Number(argv[at + 1]) : 3000;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-append-profile-'));
  const store = openStore(dir, 'NORMAL');
  const conversationId = randomUUID();
  const writer = createWriter(store, TENANT, conversationId);
  await writer.execute({ type: 'start', conversationId });
  const raws = Array.from({ length: turns }, (_, i) => rawTurn(i));
  const t0 = performance.now();
  for (let i = 0; i < turns; i++) {
    const tip = writer.state.tip;
    await writer.execute({
      type: 'commitTurn',
      parentId: tip,
      expectedTip: tip,
      messages: parsed(raws[i]),
    });
  }
  const wholeUs = ((performance.now() - t0) * 1000) / turns;
  await store.close();
  if (argv.includes('--whole')) {
    fs.rmSync(dir, { recursive: true, force: true });
    console.log(`whole append: ${fmt(wholeUs)} µs per turn (${turns} turns)`);
    return;
  }

  // Each layer alone, on the same turns, from the same state the writer reached.
  const state0 = writer.state;
  const deps = { newId: () => randomUUID(), now: () => new Date().toISOString() };
  const secret = Buffer.alloc(32, 7);
  const key = Buffer.alloc(32, 9);
  const stream = conversationStream(TENANT, conversationId);
  const timed: [string, number][] = [];
  const time = (name: string, fn: (i: number) => void) => {
    const n = Math.min(turns, 2000);
    const s = performance.now();
    for (let i = 0; i < n; i++) fn(i);
    timed.push([name, ((performance.now() - s) * 1000) / n]);
  };
  time('parse (domain validator)', (i) => parsed(raws[i]));
  const inputs = raws.map(parsed);
  const decided = inputs.map((messages) => {
    const d = decide(
      { type: 'commitTurn', parentId: state0.tip, expectedTip: state0.tip, messages },
      state0,
      deps,
    );
    if (!d.ok) throw new Error(d.error.message);
    return d.events;
  });
  time('decide (domain checks)', (i) => {
    decide(
      { type: 'commitTurn', parentId: state0.tip, expectedTip: state0.tip, messages: inputs[i] },
      state0,
      deps,
    );
  });
  time('evolve (fold the turn)', (i) => foldEvents(decided[i], state0));
  const data = decided.map((events) => toEventData(events, TENANT));
  time('seal (content fields, AES-GCM)', (i) => {
    data[i].forEach((e, k) => sealData(e.type, e.data, key, stream, BigInt(k)));
  });
  const sealed = data.map((events) =>
    events.map((e, k) => ({ ...e, data: sealData(e.type, e.data, key, stream, BigInt(k)) })),
  );
  time('chain (canonical JSON + HMAC)', (i) => {
    let prev: string | null = null;
    sealed[i].forEach((e, k) => {
      prev = chainHash(secret, {
        streamName: stream,
        revision: BigInt(k),
        eventId: e.id as string,
        type: e.type,
        data: e.data,
        metadata: e.metadata,
        prev,
      });
    });
  });
  time('  of which canonical JSON', (i) => {
    sealed[i].forEach((e) => canonicalJson({ data: e.data, metadata: e.metadata }));
  });
  time('row JSON (stringify data + metadata)', (i) => {
    sealed[i].forEach((e) => {
      JSON.stringify(e.data);
      JSON.stringify(e.metadata);
    });
  });
  fs.rmSync(dir, { recursive: true, force: true });
  console.log(`${turns} turns of 4 messages, one conversation, synchronous=NORMAL`);
  console.log(`whole append (decide → log → evolve → snapshot): ${fmt(wholeUs)} µs per turn`);
  console.log(
    table(
      ['layer alone', 'µs per turn'],
      timed.map(([n, us]) => [n, fmt(us)]),
    ),
  );
};

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
