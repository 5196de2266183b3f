// The chain's cost (append, verify) against the bare SQLite store, side by side in one run:
//   node -r @swc-node/register libs/audit/bench/verify-rate.ts [--events N] [--reps N] [--sync FULL]
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type EventData, type EventStore } from '@arbor/event-store';
import { openSqliteEventStore, type SynchronousMode } from '@arbor/event-store/sqlite';
import { readAllPages, verifyStore, withHashChain } from '@arbor/audit';

const EVENTS_PER_TURN = 4;
const STREAMS = 100;
const CHUNK = 100;
const PAGE = 5_000;

const arg = (flag: string, fallback: string) => {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? process.argv[i + 1] : fallback;
};

const messageData = (turn: number, k: number) => ({
  turnId: `turn-${turn}`,
  messageId: randomUUID(),
  role: k % 2 === 0 ? 'user' : 'assistant',
  content: [{ type: 'text', text: `turn ${turn} message ${k} `.repeat(60) }],
  usage: { input_tokens: 1200 + turn, output_tokens: 300 + k },
});

const turnEvents = (turn: number): EventData[] =>
  Array.from({ length: EVENTS_PER_TURN }, (_, k) => ({
    type: k === EVENTS_PER_TURN - 1 ? 'TurnCommitted' : 'MessageAppended',
    data: messageData(turn, k),
    metadata: {
      tenantId: 'bench',
      actor: 'key_bench',
      timestamp: new Date().toISOString(),
      correlationId: randomUUID(),
    },
  }));

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;
const cpuSeconds = (start: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
};

const writeChunk = async (
  store: EventStore,
  from: number,
  to: number,
  revisions: Map<string, bigint>,
) => {
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  for (let turn = from; turn < to; turn++) {
    const stream = `conv-bench.c${turn % STREAMS}`;
    const result = await store.appendToStream(stream, turnEvents(turn), {
      expectedRevision: revisions.get(stream) ?? 'no_stream',
    });
    revisions.set(stream, result.nextExpectedRevision);
  }
  return { wall: seconds(started), cpu: cpuSeconds(cpu) };
};

const main = async () => {
  const events = Number(arg('--events', '100000'));
  const reps = Number(arg('--reps', '3'));
  const sync = arg('--sync', 'OFF').toUpperCase() as SynchronousMode;
  const turns = Math.ceil(events / EVENTS_PER_TURN);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-audit-bench-'));
  const secret = Buffer.alloc(32, 0x5a);
  const chainedRaw = openSqliteEventStore({
    path: path.join(dir, 'chained.sqlite'),
    synchronous: sync,
  });
  const bare = openSqliteEventStore({ path: path.join(dir, 'bare.sqlite'), synchronous: sync });
  const chained = withHashChain(chainedRaw, secret);
  try {
    const chainedTime = { wall: 0, cpu: 0 };
    const bareTime = { wall: 0, cpu: 0 };
    const add = (sum: { wall: number; cpu: number }, t: { wall: number; cpu: number }) => {
      sum.wall += t.wall;
      sum.cpu += t.cpu;
    };
    const chainedRevs = new Map<string, bigint>();
    const bareRevs = new Map<string, bigint>();
    for (let from = 0, i = 0; from < turns; from += CHUNK, i++) {
      const to = Math.min(turns, from + CHUNK);
      if (i % 2 === 0) {
        add(chainedTime, await writeChunk(chained, from, to, chainedRevs));
        add(bareTime, await writeChunk(bare, from, to, bareRevs));
      } else {
        add(bareTime, await writeChunk(bare, from, to, bareRevs));
        add(chainedTime, await writeChunk(chained, from, to, chainedRevs));
      }
    }
    const total = turns * EVENTS_PER_TURN;
    console.log(
      `log: ${total} events, ${turns} turns over ${STREAMS} streams, synchronous=${sync}`,
    );
    console.log(
      `append  chained ${(turns / chainedTime.wall).toFixed(0)} turns/s, bare ${(turns / bareTime.wall).toFixed(0)} turns/s, ratio ${(bareTime.wall / chainedTime.wall).toFixed(2)}; ` +
        `CPU per turn chained ${((chainedTime.cpu / turns) * 1e6).toFixed(0)} µs, bare ${((bareTime.cpu / turns) * 1e6).toFixed(0)} µs`,
    );

    const verifyRates: number[] = [];
    const readRates: number[] = [];
    for (let rep = 0; rep < reps; rep++) {
      const readStarted = process.hrtime.bigint();
      let read = 0;
      for await (const page of readAllPages(chainedRaw, { pageSize: PAGE })) read += page.length;
      readRates.push(read / seconds(readStarted));
      const report = await verifyStore(chainedRaw, secret, { pageSize: PAGE });
      if (!report.ok || report.events !== total)
        throw new Error('the untampered log did not verify');
      verifyRates.push(report.eventsPerSecond);
      console.log(
        `verify  rep ${rep + 1}: ${report.eventsPerSecond} events/s (${report.elapsedMs.toFixed(0)} ms); read alone ${readRates[rep].toFixed(0)} events/s`,
      );
    }
    console.log(
      `verify  median ${median(verifyRates)} events/s; read alone median ${median(readRates).toFixed(0)} events/s; ratio ${(median(verifyRates) / median(readRates)).toFixed(2)}`,
    );
  } finally {
    await chainedRaw.close();
    await bare.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
};

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
