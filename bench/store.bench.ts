/**
 * docs/TARGETS.md: the embedded store commits turns at >= 0.7x raw better-sqlite3 inserts of the same rows
 * at the same durability setting, and replays the log at >= 0.5x a raw scan-and-parse.
 *
 *   npm run bench:store -- [--turns 5000] [--sync FULL|NORMAL] [--reps 3]
 *
 * Both sides write the same rows (4 events of ~1.5 KB JSON per turn, over 100 streams) into the
 * same schema (the store's own DDL) with the same pragmas, each into a fresh file; the order
 * alternates between repetitions and the median is reported. A third side, `sealed`, is the store
 * with content encryption on (each event's content sealed with its conversation's key from a
 * key store file beside the log; ARBOR_ENCRYPTION=on, the default): its ratios to raw are held
 * to the same targets, and sealed/store is the encryption's cost. A second pass per repetition
 * runs `sealed` again beside `raw sealed`, the baseline for the sealed rows: hand-written better-sqlite3 statements and node:crypto calls
 * writing the same sealed rows (each event's content as one AES-256-GCM box, a key per stream
 * wrapped by a master key in a key file with the same pragmas as the key store's) and scanning
 * them back opened; sealed/raw-sealed is the store's own overhead with encryption on. In that pass
 * runs the floor too (bench/lib/floor.ts, issue #25): each turn's bytes parsed, hashed, sealed once
 * and inserted as one row, a transaction per turn; sealed/floor is held to >= 0.5.
 */
import { createCipheriv, createDecipheriv, randomBytes, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { type EventData, type EventMetadata, type EventStore } from '@arbor/event-store';
import { openSqliteEventStore, type SynchronousMode } from '@arbor/event-store/sqlite';
import { openSqliteKeyStore, withContentKeys } from '@arbor/event-store/crypto';
import { applyPragmas, SCHEMA_SQL } from '@arbor/event-store/sqlite/schema';
import { openFloor } from './lib/floor';
import { median } from './lib/report';

const EVENTS_PER_TURN = 4;
const STREAMS = 100;
const PAGE = 1000;
const APPEND_TARGET = 0.7;
const REPLAY_TARGET = 0.5;
/** Issue #25: the store with encryption on commits at >= 0.5x the floor. */
const FLOOR_TARGET = 0.5;

interface Args {
  turns: number;
  sync: SynchronousMode;
  reps: number;
}

const parseArgs = (argv: string[]): Args => {
  const value = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const turns = Number(value('--turns') ?? 5000);
  const reps = Number(value('--reps') ?? 3);
  const sync = (value('--sync') ?? 'FULL').toUpperCase();
  if (!Number.isInteger(turns) || turns < 1) throw new Error('--turns must be a positive integer');
  if (!Number.isInteger(reps) || reps < 1) throw new Error('--reps must be a positive integer');
  if (sync !== 'FULL' && sync !== 'NORMAL') throw new Error('--sync must be FULL or NORMAL');
  return { turns, sync, reps };
};

interface Turn {
  stream: string;
  expectedRevision: bigint | 'no_stream';
  events: EventData[];
  /** The turn as it would arrive (its events as JSON): the floor side's input. */
  bytes: Buffer;
}

/** ~1.5 KB of JSON per event, shaped like a message of a turn. */
const messageData = (turn: number, k: number) => ({
  turnId: `turn-${turn}`,
  messageId: randomUUID(),
  parentId: k === 0 ? null : `m-${turn}-${k - 1}`,
  role: k % 2 === 0 ? 'user' : 'assistant',
  content: [
    {
      type: 'text',
      text: `turn ${turn} message ${k} `.padEnd(1300, 'lorem ipsum dolor sit amet '),
    },
  ],
  usage: { inputTokens: 1000 + turn, outputTokens: 200 + k },
});

const metadata = (turn: number): EventMetadata => ({
  tenantId: 'bench',
  actor: 'key:bench',
  timestamp: new Date(1_700_000_000_000 + turn).toISOString(),
  correlationId: `c-${turn}`,
});

const makeTurns = (count: number): Turn[] => {
  const revisions = new Map<string, bigint>();
  return Array.from({ length: count }, (_, t) => {
    const stream = `conv-bench.c${t % STREAMS}`;
    const last = revisions.get(stream);
    revisions.set(stream, (last ?? -1n) + BigInt(EVENTS_PER_TURN));
    const events = Array.from({ length: EVENTS_PER_TURN }, (_, k) => ({
      id: randomUUID(),
      // A content event, so the sealed side seals it (`message.content`).
      type: 'MessageAppended',
      data: { message: messageData(t, k) },
      metadata: metadata(t),
    }));
    return {
      stream,
      expectedRevision: last ?? 'no_stream',
      events,
      bytes: Buffer.from(JSON.stringify(events)),
    };
  });
};

const seconds = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9;

/** Wall and CPU seconds of one call: wall is what counts; CPU shows how much is noise. */
const timed = async <T>(entry: { s: number; cpu: number }, work: () => Promise<T>): Promise<T> => {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  const result = await work();
  entry.s += seconds(start);
  const used = process.cpuUsage(cpu);
  entry.cpu += (used.user + used.system) / 1e6;
  return result;
};

interface Rates {
  store: number;
  raw: number;
  sealed: number;
  rawSealed: number;
  /** The sealed side again, measured in the pass beside `raw sealed`. */
  sealedPaired: number;
  /** store/raw computed from CPU seconds instead of wall seconds. */
  cpuRatio: number;
  /** The floor (bench/lib/floor.ts), measured in the pass beside `raw sealed`. */
  floor: number;
}

const rates = (count: number, sides: { name: string; s: number; cpu: number }[]): Rates => {
  const side = (name: string) => sides.find((e) => e.name === name) ?? { s: NaN, cpu: NaN };
  return {
    store: count / side('store').s,
    raw: count / side('raw').s,
    sealed: count / side('sealed').s,
    rawSealed: count / side('raw sealed').s,
    sealedPaired: count / side('sealed').s,
    cpuRatio: side('raw').cpu / side('store').cpu,
    floor: count / side('floor').s,
  };
};

/** Both sides run chunk by chunk in turn, so a noisy neighbour slows both alike. */
const CHUNK = 100;

/** Through the port: one appendToStream per turn with the exact expected revision. */
const MASTER = randomBytes(32);

/** The store as the app opens it with ARBOR_ENCRYPTION on: content sealed per conversation. */
const sealedStore = (file: string, sync: SynchronousMode): EventStore =>
  withContentKeys(
    openSqliteEventStore({ path: file, synchronous: sync }),
    openSqliteKeyStore(`${file}.keys`, MASTER),
  );

const storeAppender = (file: string, sync: SynchronousMode, sealed = false) => {
  const store = sealed
    ? sealedStore(file, sync)
    : openSqliteEventStore({ path: file, synchronous: sync });
  return {
    run: async (turns: Turn[]) => {
      for (const turn of turns) {
        await store.appendToStream(turn.stream, turn.events, {
          expectedRevision: turn.expectedRevision,
        });
      }
    },
    close: () => store.close(),
  };
};

const openRaw = (file: string, sync: SynchronousMode) => {
  const db = new Database(file);
  applyPragmas(db, { synchronous: sync, busyTimeoutMs: 5000 });
  return db;
};

/** How a raw side writes one event's data column (its revision is the stream's next). */
type EncodeData = (stream: string, revision: number, e: EventData) => string;

/**
 * The baseline: the same rows, hand-written prepared statements, one transaction per turn.
 * `encode` writes the data column (default: the event's data as JSON); `onClose` closes what it
 * opened beside the log.
 */
const rawAppender = (
  file: string,
  sync: SynchronousMode,
  encode: EncodeData = (_stream, _revision, e) => JSON.stringify(e.data),
  onClose: () => void = () => undefined,
) => {
  const db = openRaw(file, sync);
  db.exec(SCHEMA_SQL);
  const begin = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  const insert = db.prepare(
    'INSERT INTO events (stream, revision, event_id, type, data, metadata, created) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  return {
    run: async (turns: Turn[]) => {
      for (const turn of turns) {
        let revision = turn.expectedRevision === 'no_stream' ? -1 : Number(turn.expectedRevision);
        const created = Date.now();
        begin.run();
        for (const e of turn.events) {
          revision += 1;
          insert.run(
            turn.stream,
            revision,
            e.id,
            e.type,
            encode(turn.stream, revision, e),
            JSON.stringify(e.metadata),
            created,
          );
        }
        commit.run();
      }
    },
    close: async () => {
      db.close();
      onClose();
    },
  };
};

/** The hand-written sealing a raw baseline would do: AES-256-GCM, `iv | tag | ciphertext`. */
const rawSeal = (key: Buffer, plaintext: Buffer, aad: string): string => {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad));
  const body = cipher.update(plaintext);
  cipher.final();
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
};

const rawOpen = (key: Buffer, box: string, aad: string): Buffer => {
  const bytes = Buffer.from(box, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(bytes.subarray(12, 28));
  const body = decipher.update(bytes.subarray(28));
  decipher.final();
  return body;
};

/** A key file as the key store keeps one (rollback journal, secure_delete, FULL), by hand. */
const openRawKeys = (file: string) => {
  const db = new Database(file);
  db.pragma('journal_mode = DELETE');
  db.pragma('secure_delete = ON');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE IF NOT EXISTS k (stream TEXT PRIMARY KEY, wrapped BLOB NOT NULL) STRICT');
  return db;
};

/** The same sealed rows as the `sealed` side, written with hand-written statements. */
const rawSealedAppender = (file: string, sync: SynchronousMode) => {
  const keysDb = openRawKeys(`${file}.keys`);
  const insertKey = keysDb.prepare('INSERT INTO k (stream, wrapped) VALUES (?, ?)');
  const keys = new Map<string, Buffer>();
  // A stream's key is made (and its wrapped form written) by its first event.
  const keyOf = (stream: string): Buffer => {
    let key = keys.get(stream);
    if (key === undefined) {
      key = randomBytes(32);
      insertKey.run(stream, Buffer.from(rawSeal(MASTER, key, stream), 'base64'));
      keys.set(stream, key);
    }
    return key;
  };
  return rawAppender(
    file,
    sync,
    (stream, revision, e) => {
      const { message } = e.data as { message: Record<string, unknown> };
      const { content, ...structure } = message;
      const box = rawSeal(
        keyOf(stream),
        Buffer.from(JSON.stringify({ 'message.content': content })),
        `${stream}|${revision}`,
      );
      return JSON.stringify({ message: structure, sealed: { fields: ['message.content'], box } });
    },
    () => keysDb.close(),
  );
};

type SideName = 'store' | 'raw' | 'sealed' | 'raw sealed' | 'floor';

/**
 * The floor: each turn's bytes parsed, hashed, sealed once and inserted as one row, a transaction
 * per turn (what the group commit of a lone sequential writer holds: a batch of one).
 */
const floorAppender = (file: string, sync: SynchronousMode) => {
  const floor = openFloor(file, sync);
  return {
    run: async (turns: Turn[]) => {
      for (const turn of turns) floor.commit([{ conversation: turn.stream, bytes: turn.bytes }]);
    },
    close: async () => floor.close(),
  };
};

const appenderOf = (name: SideName, file: string, sync: SynchronousMode) => {
  if (name === 'floor') return floorAppender(file, sync);
  if (name === 'store') return storeAppender(file, sync);
  if (name === 'raw') return rawAppender(file, sync);
  if (name === 'sealed') return storeAppender(file, sync, true);
  return rawSealedAppender(file, sync);
};

const fileOf = (dir: string, pass: string, name: SideName, rep: number) =>
  path.join(dir, `${pass}-${name.replace(' ', '-')}-${rep}.sqlite`);

/**
 * Runs the named sides over the same turns, interleaved in chunks; returns turns/s for each.
 * Two passes per repetition: `clear` (store, raw, sealed) and `sealed` (sealed, raw sealed), so
 * the garbage one side leaves is paid inside the same pairs as before the raw-sealed side came.
 */
const appendBoth = async (
  dir: string,
  pass: string,
  names: SideName[],
  rep: number,
  turns: Turn[],
  sync: SynchronousMode,
) => {
  const sides = names.map((name) => ({
    name,
    side: appenderOf(name, fileOf(dir, pass, name, rep), sync),
    s: 0,
    cpu: 0,
  }));
  if (rep % 2 === 1) sides.reverse();
  for (let i = 0; i < turns.length; i += CHUNK) {
    const chunk = turns.slice(i, i + CHUNK);
    for (const entry of sides) await timed(entry, () => entry.side.run(chunk));
  }
  for (const entry of sides) await entry.side.close();
  return rates(turns.length, sides);
};

/** A trivial projection both replays feed, so neither side can skip the parsed values. */
const project = (counts: Map<string, number>, type: string, data: unknown) => {
  counts.set(type, (counts.get(type) ?? 0) + (data === null ? 0 : 1));
};

/** Through the port: readAll in pages, as a projection rebuild would. */
const storeReplayer = (file: string, sealed = false) => {
  const store: EventStore = sealed
    ? sealedStore(file, 'FULL')
    : openSqliteEventStore({ path: file });
  const counts = new Map<string, number>();
  let from: bigint | 'start' = 'start';
  let done = false;
  return {
    read: 0,
    /** One page; false when the log is exhausted. */
    async step(): Promise<boolean> {
      if (done) return false;
      const page = await store.readAll({ fromPosition: from, maxCount: PAGE });
      for (const e of page) project(counts, e.type, e.data);
      this.read += page.length;
      if (page.length < PAGE) done = true;
      else from = page[page.length - 1].position + 1n;
      return !done;
    },
    close: () => store.close(),
  };
};

/** A scanned row: `[position, stream, revision, event_id, type, data, metadata, created]`. */
type RawRow = unknown[];

/**
 * The baseline: one SELECT scan over the same rows, JSON.parse of data (through `decode`, which
 * opens sealed rows on the raw sealed side) and metadata. `onClose` closes what it opened beside.
 */
const rawReplayer = (
  file: string,
  decode: (row: RawRow) => unknown = (row) => JSON.parse(row[5] as string),
  onClose: () => void = () => undefined,
) => {
  const db = openRaw(file, 'FULL');
  const counts = new Map<string, number>();
  const rows = db
    .prepare(
      'SELECT position, stream, revision, event_id, type, data, metadata, created FROM events ORDER BY position',
    )
    .raw()
    .iterate() as IterableIterator<RawRow>;
  let done = false;
  return {
    read: 0,
    /** The next PAGE rows of the same scan; false when exhausted. */
    async step(): Promise<boolean> {
      for (let n = 0; n < PAGE && !done; n++) {
        const next = rows.next();
        if (next.done) {
          done = true;
          break;
        }
        const row = next.value;
        const data = decode(row);
        JSON.parse(row[6] as string);
        project(counts, row[4] as string, data);
        this.read++;
      }
      return !done;
    },
    close: async () => {
      db.close();
      onClose();
    },
  };
};

/** The raw scan of the sealed rows: parse, unwrap each stream's key once, open every box. */
const rawSealedReplayer = (file: string) => {
  const keysDb = openRawKeys(`${file}.keys`);
  const wrappedOf = keysDb.prepare('SELECT wrapped FROM k WHERE stream = ?');
  const keys = new Map<string, Buffer>();
  const keyOf = (stream: string): Buffer => {
    let key = keys.get(stream);
    if (key === undefined) {
      const row = wrappedOf.get(stream) as { wrapped: Buffer };
      key = rawOpen(MASTER, row.wrapped.toString('base64'), stream);
      keys.set(stream, key);
    }
    return key;
  };
  return rawReplayer(
    file,
    (row) => {
      const stream = row[1] as string;
      const data = JSON.parse(row[5] as string) as {
        message: Record<string, unknown>;
        sealed: { box: string };
      };
      const aad = `${stream}|${row[2] as number}`;
      const opened = JSON.parse(
        rawOpen(keyOf(stream), data.sealed.box, aad).toString('utf8'),
      ) as Record<string, unknown>;
      return { message: { ...data.message, content: opened['message.content'] } };
    },
    () => keysDb.close(),
  );
};

const replayerOf = (name: Exclude<SideName, 'floor'>, file: string) => {
  if (name === 'store') return storeReplayer(file);
  if (name === 'raw') return rawReplayer(file);
  if (name === 'sealed') return storeReplayer(file, true);
  return rawSealedReplayer(file);
};

/** Replays what the pass appended, page by page in turn; returns events/s for each. */
const replayBoth = async (
  dir: string,
  pass: string,
  names: Exclude<SideName, 'floor'>[],
  rep: number,
  expected: number,
) => {
  // The raw side scans the store's file (the same rows), as it always has.
  const source = (name: Exclude<SideName, 'floor'>) => (name === 'raw' ? 'store' : name);
  const sides = names.map((name) => ({
    name,
    side: replayerOf(name, fileOf(dir, pass, source(name), rep)),
    s: 0,
    cpu: 0,
    more: true,
  }));
  if (rep % 2 === 1) sides.reverse();
  while (sides.some((e) => e.more)) {
    for (const entry of sides) {
      if (!entry.more) continue;
      entry.more = await timed(entry, () => entry.side.step());
    }
  }
  for (const entry of sides) {
    await entry.side.close();
    if (entry.side.read !== expected) {
      throw new Error(`${entry.name} replay read ${entry.side.read} events, expected ${expected}`);
    }
  }
  return rates(expected, sides);
};

const verdict = (ratio: number, target: number) => (ratio >= target ? 'PASS' : 'MISS');

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

const main = async () => {
  const args = parseArgs(process.argv.slice(2));
  const turns = makeTurns(args.turns);
  const bytes = JSON.stringify(turns[0].events[0].data).length;
  console.log(
    `store bench: ${args.turns} turns x ${EVENTS_PER_TURN} events (~${bytes} B JSON each) over ` +
      `${STREAMS} streams, synchronous=${args.sync}, ${args.reps} repetitions, node ${process.version}`,
  );
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-bench-'));
  const append: Rates[] = [];
  const replay: Rates[] = [];
  try {
    for (let rep = 0; rep < args.reps; rep++) {
      const events = args.turns * EVENTS_PER_TURN;
      const clear: Exclude<SideName, 'floor'>[] = ['store', 'raw', 'sealed'];
      const sealedPair: Exclude<SideName, 'floor'>[] = ['sealed', 'raw sealed'];
      const a1 = await appendBoth(dir, 'clear', clear, rep, turns, args.sync);
      const r1 = await replayBoth(dir, 'clear', clear, rep, events);
      const a2 = await appendBoth(dir, 'sealed', [...sealedPair, 'floor'], rep, turns, args.sync);
      const r2 = await replayBoth(dir, 'sealed', sealedPair, rep, events);
      const a = { ...a1, rawSealed: a2.rawSealed, sealedPaired: a2.sealed, floor: a2.floor };
      const r = { ...r1, rawSealed: r2.rawSealed, sealedPaired: r2.sealed };
      append.push(a);
      replay.push(r);
      console.log(
        `  rep ${rep + 1}: append store ${fmt(a.store)} / raw ${fmt(a.raw)} turns/s ` +
          `(${(a.store / a.raw).toFixed(2)}); replay store ${fmt(r.store)} / raw ${fmt(r.raw)} ` +
          `events/s (${(r.store / r.raw).toFixed(2)}); sealed append ${fmt(a.sealed)} turns/s ` +
          `(${(a.sealed / a.raw).toFixed(2)} of raw; ${(a.sealedPaired / a.rawSealed).toFixed(2)} of ` +
          `raw sealed), replay ${fmt(r.sealed)} events/s (${(r.sealed / r.raw).toFixed(2)} of raw; ` +
          `${(r.sealedPaired / r.rawSealed).toFixed(2)} of raw sealed); floor ${fmt(a.floor)} ` +
          `turns/s (sealed/floor ${(a.sealedPaired / a.floor).toFixed(2)})`,
      );
      for (const f of fs.readdirSync(dir)) fs.rmSync(path.join(dir, f), { force: true });
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const report = (what: string, unit: string, runs: Rates[], target: number) => {
    // Each repetition ran both sides interleaved, so its ratio is a paired measurement.
    const ratio = median(runs.map((x) => x.store / x.raw));
    console.log(
      `  ${what.padEnd(6)} store ${fmt(median(runs.map((x) => x.store)))} ${unit}  ` +
        `raw ${fmt(median(runs.map((x) => x.raw)))} ${unit}  ` +
        `ratio ${ratio.toFixed(2)} (target >= ${target})  ${verdict(ratio, target)}  ` +
        `[cpu-time ratio ${median(runs.map((x) => x.cpuRatio)).toFixed(2)}]`,
    );
  };
  console.log(`\nmedian of ${args.reps} repetitions:`);
  report('append', 'turns/s', append, APPEND_TARGET);
  report('replay', 'events/s', replay, REPLAY_TARGET);
  const sealedReport = (what: string, unit: string, runs: Rates[], target: number) => {
    const ratio = median(runs.map((x) => x.sealed / x.raw));
    console.log(
      `  ${what.padEnd(6)} sealed ${fmt(median(runs.map((x) => x.sealed)))} ${unit}  ` +
        `ratio to raw ${ratio.toFixed(2)} (target >= ${target})  ${verdict(ratio, target)}  ` +
        `encryption on/off ${median(runs.map((x) => x.sealed / x.store)).toFixed(2)}`,
    );
  };
  console.log(
    'encryption on (content sealed per conversation), same turns, against raw clear rows:',
  );
  sealedReport('append', 'turns/s', append, APPEND_TARGET);
  sealedReport('replay', 'events/s', replay, REPLAY_TARGET);
  const againstRawSealed = (what: string, unit: string, runs: Rates[], target: number) => {
    const ratio = median(runs.map((x) => x.sealedPaired / x.rawSealed));
    console.log(
      `  ${what.padEnd(6)} sealed ${fmt(median(runs.map((x) => x.sealedPaired)))} ${unit}  ` +
        `raw sealed ${fmt(median(runs.map((x) => x.rawSealed)))} ${unit}  ` +
        `ratio ${ratio.toFixed(2)} (target >= ${target})  ${verdict(ratio, target)}  ` +
        `raw sealed/raw clear ${median(runs.map((x) => x.rawSealed / x.raw)).toFixed(2)}`,
    );
  };
  console.log(
    'encryption on, against raw statements writing (and opening) the same sealed rows by hand:',
  );
  againstRawSealed('append', 'turns/s', append, APPEND_TARGET);
  againstRawSealed('replay', 'events/s', replay, REPLAY_TARGET);
  const floor = median(append.map((x) => x.floor));
  const sealedFloor = median(append.map((x) => x.sealedPaired / x.floor));
  console.log(
    'the floor (issue #25: each turn parsed, SHA-256-hashed, AES-GCM-sealed once, one row, a ' +
      'transaction per turn as the group commit holds for one writer):',
  );
  console.log(
    `  append floor ${fmt(floor)} turns/s  sealed/floor ${sealedFloor.toFixed(2)} (target >= ` +
      `${FLOOR_TARGET})  ${verdict(sealedFloor, FLOOR_TARGET)}  store/floor ` +
      `${median(append.map((x) => x.store / x.floor)).toFixed(2)}`,
  );
};

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
