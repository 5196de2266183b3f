/**
 * docs/TARGETS.md, side by side in one run: Arbor embedded in process vs pi's JSONL session tree
 * (`SessionManager` from @mariozechner/pi-coding-agent, installed into bench/peers/ by this
 * script, never into Arbor's own install).
 *
 *   npm run bench:peers -- [--turns 5000] [--read-at 2000] [--reads 20] [--conversations 32]
 *   npm run bench:peers -- --only open [--open-reps 7] [--data <dir>]   (cold open alone)
 *   also: [--screen-turns 200] [--screen-images 4]   (the computer-use session's disk)
 *
 * Equal durability: pi appends each entry with appendFileSync (in the OS cache, no fsync); Arbor
 * commits each turn to its SQLite log at synchronous=NORMAL (WAL, no fsync per commit). Both
 * survive a process crash, neither a power cut. Arbor's side runs in process through its libs:
 * messages parsed and checked (parseMessages + decide), one atomic append per turn, the projector
 * live in the same process (read models on disk), reads through the projection queries.
 * Every phase runs in a fresh process; "cold open" is a new process, file caches as they are.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type MessageInput } from '@arbor/domain';
import { createWriter, openReadSide, openStore, readActiveBranch } from './lib/arbor-session';
import {
  flagValue,
  fmt,
  machineLine,
  median,
  numberFlag,
  section,
  table,
  verdictLines,
} from './lib/report';
import { type FloorTurn, openFloor } from './lib/floor';
import { ROOT } from './lib/server';
import { parsedTurn, rawTurn, toolTurn } from './lib/turns';

const PEERS = path.join(ROOT, 'bench', 'peers');
const PI_PACKAGE = path.join(PEERS, 'node_modules', '@mariozechner', 'pi-coding-agent');
const TENANT = 'bench';
const IDS_FILE = 'arbor-ids.json';
/** Tip moves per side (odd: the last one lands on the earlier message). Keep in step with pi-side.mjs. */
const MOVES = 11;

const now = () => process.hrtime.bigint();
const since = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

const turnMessages = (i: number): MessageInput[] => parsedTurn(rawTurn(i));

/**
 * A computer-use turn (item 7 of issue #25): the model asks for a screenshot, the tool answers
 * with a PNG of ~1 MB (one of a few distinct images, resent), the model answers.
 */
const screenTurn = (i: number, png: string): unknown[] =>
  toolTurn(i, 120, { name: 'computer', input: { action: 'screenshot' } }, [
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
  ]);

/** The screenshots of the computer-use session, as files beside the data (both sides read them). */
const SCREEN_FILES = (dir: string, count: number) =>
  Array.from({ length: count }, (_, k) => path.join(dir, `screen-${k}.png`));

/**
 * `count` distinct PNGs of ~1 MB each: noise in 8-bit RGB at 540×540 does not compress, so the
 * file is as large as a busy desktop screenshot. Real PNGs (the domain reads their headers).
 */
const writeScreens = async (dir: string, count: number): Promise<string[]> => {
  const { createCanvas } = await import('@napi-rs/canvas');
  const files = SCREEN_FILES(dir, count);
  files.forEach((file, k) => {
    const canvas = createCanvas(540, 540);
    const ctx = canvas.getContext('2d');
    const image = ctx.createImageData(540, 540);
    let x = 0x9e3779b9 ^ (k + 1);
    for (let p = 0; p < image.data.length; p++) {
      // xorshift32: the same images in every run.
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      image.data[p] = p % 4 === 3 ? 255 : x & 0xff;
    }
    ctx.putImageData(image, 0, 0);
    fs.writeFileSync(file, canvas.toBuffer('image/png'));
  });
  return files;
};

interface Reads {
  p50: number;
  first: number;
  messages: number;
}

const timedReads = async (read: () => number | Promise<number>, reads: number): Promise<Reads> => {
  const times: number[] = [];
  let messages = 0;
  for (let r = 0; r < reads; r++) {
    const t0 = now();
    messages = await read();
    times.push(since(t0));
  }
  return { p50: median(times), first: times[0], messages };
};

const dirBytes = (dir: string) =>
  fs.readdirSync(dir).reduce((sum, f) => sum + fs.statSync(path.join(dir, f)).size, 0);

/** Arbor's phases, each run in its own process (`--child <phase> <dir> ...`). */
const arborPhases = {
  async append(dir: string, turns: number, readAt: number, reads: number) {
    // First, in a scratch dir, the log alone: the same turns with no projector running, then
    // the projector catching up in one go (how a rebuild or a restarted server projects).
    const logOnly = await appendLogOnly(path.join(dir, 'log-only'), turns);
    const store = openStore(dir, 'NORMAL');
    const read = await openReadSide(store, dir);
    const conversationId = randomUUID();
    const writer = createWriter(store, TENANT, conversationId);
    await writer.execute({ type: 'start', conversationId });
    const branch = async () =>
      (await readActiveBranch(read.queries, TENANT, conversationId)).length;
    let appendMs = 0;
    let atSmall: Reads | null = null;
    const turnEnds: string[] = [];
    for (let i = 0; i < turns; i++) {
      const t0 = now();
      const tip = writer.state.tip;
      const r = await writer.execute({
        type: 'commitTurn',
        parentId: tip,
        expectedTip: tip,
        messages: turnMessages(i),
      });
      appendMs += since(t0);
      turnEnds.push(r.tip);
      if ((i + 1) * 4 === readAt) {
        await read.caughtUp();
        atSmall = await timedReads(branch, reads);
      }
    }
    const t1 = now();
    await read.caughtUp();
    const catchUpMs = since(t1);
    const atLarge = await timedReads(branch, reads);
    await read.close();
    await store.close();
    const target = turnEnds[Math.floor(turns / 2)];
    fs.writeFileSync(path.join(dir, IDS_FILE), JSON.stringify({ conversationId, target }));
    return { appendMs, catchUpMs, turns, atSmall, atLarge, bytes: dirBytes(dir), logOnly };
  },

  /**
   * The shape of a server: `convs` conversations committed concurrently in one process (each
   * writer awaits its own previous turn; the group committer shares transactions between them),
   * the projector live, timed until reads see every turn.
   */
  async concurrent(dir: string, turns: number, convs: number) {
    fs.mkdirSync(dir, { recursive: true });
    const store = openStore(dir, 'NORMAL');
    const read = await openReadSide(store, dir);
    const writers = Array.from({ length: convs }, () => {
      const conversationId = randomUUID();
      return { conversationId, writer: createWriter(store, TENANT, conversationId) };
    });
    for (const w of writers)
      await w.writer.execute({ type: 'start', conversationId: w.conversationId });
    await read.caughtUp();
    const perWriter = Math.ceil(turns / convs);
    const t0 = now();
    const cpu0 = process.cpuUsage();
    await Promise.all(
      writers.map(async ({ writer }, c) => {
        for (let i = c * perWriter; i < Math.min(turns, (c + 1) * perWriter); i++) {
          const tip = writer.state.tip;
          await writer.execute({
            type: 'commitTurn',
            parentId: tip,
            expectedTip: tip,
            messages: turnMessages(i),
          });
        }
      }),
    );
    const appendMs = since(t0);
    await read.caughtUp();
    const caughtUpMs = since(t0);
    const cpu = process.cpuUsage(cpu0);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    let messages = 0;
    for (const w of writers)
      messages += (await readActiveBranch(read.queries, TENANT, w.conversationId)).length;
    await read.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
    return { appendMs, caughtUpMs, cpuMs, turns, convs, messages };
  },

  async open(dir: string, reads: number) {
    const { conversationId, target } = JSON.parse(
      fs.readFileSync(path.join(dir, IDS_FILE), 'utf8'),
    ) as { conversationId: string; target: string };
    // Cold open → the whole active branch in hand (what a harness needs to build its context).
    const t0 = now();
    const store = openStore(dir, 'NORMAL');
    const storeOpenMs = since(t0);
    const read = await openReadSide(store, dir);
    await read.caughtUp();
    const messages = (await readActiveBranch(read.queries, TENANT, conversationId)).length;
    const openAndReadMs = since(t0);
    // Ready to append the next turn: the write side folds the conversation's stream.
    const writer = createWriter(store, TENANT, conversationId);
    const t1 = now();
    await writer.load();
    const foldMs = since(t1);
    const warm = await timedReads(
      async () => (await readActiveBranch(read.queries, TENANT, conversationId)).length,
      reads,
    );
    await read.close();
    // Move the branch tip to an earlier message (the end of the middle turn) and back, MOVES
    // times, ending on the earlier message; the median command is reported. The projector is
    // not running meanwhile: re-materializing the read model's active branch (10,000 rows each
    // way here) is timed apart, below.
    const tip = writer.state.tip as string;
    const moves: number[] = [];
    for (let m = 0; m < MOVES; m++) {
      const t2 = now();
      await writer.execute({ type: 'moveTip', messageId: m % 2 === 0 ? target : tip });
      moves.push(since(t2));
    }
    const moveMs = median(moves);
    const t3 = now();
    const reread = await openReadSide(store, dir);
    await reread.caughtUp();
    const projectMovesMs = since(t3);
    const movedTo = reread.queries.getConversation(TENANT, conversationId)?.tip;
    const branchMessages = (await readActiveBranch(reread.queries, TENANT, conversationId)).length;
    await reread.close();
    await store.close();
    return {
      openMs: storeOpenMs + foldMs,
      openAndReadMs,
      foldMs,
      messages,
      warm,
      moveMs,
      projectMovesMs,
      target,
      movedTo,
      branchMessages,
    };
  },

  /**
   * Cold open → ready to append, alone (`--only open`): a new process opens the log as the
   * server composes it and loads the conversation's write state (snapshot + the events after it),
   * nothing else. Split: the store's open, and the load (`folded`: events folded after the
   * snapshot).
   */
  async coldopen(dir: string) {
    const { conversationId } = JSON.parse(fs.readFileSync(path.join(dir, IDS_FILE), 'utf8')) as {
      conversationId: string;
    };
    const t0 = now();
    const store = openStore(dir, 'NORMAL');
    const storeOpenMs = since(t0);
    const writer = createWriter(store, TENANT, conversationId);
    const t1 = now();
    const loaded = await writer.load();
    const foldMs = since(t1);
    const openMs = since(t0);
    await store.close();
    return { openMs, storeOpenMs, foldMs, revision: loaded.revision };
  },

  /**
   * The floor (bench/lib/floor.ts) over the same turn bytes: one conversation (a batch of one turn,
   * as a lone writer's group commit holds), then `convs` conversations with one turn of each per
   * batch (what the group committer gathers from `convs` writers in flight). Same synchronous
   * setting as Arbor's side.
   */
  async floor(dir: string, turns: number, convs: number) {
    fs.mkdirSync(dir, { recursive: true });
    const bodies = Array.from({ length: turns }, (_, i) => Buffer.from(JSON.stringify(rawTurn(i))));
    const seq = openFloor(path.join(dir, 'floor-seq.sqlite'), 'NORMAL');
    const t0 = now();
    for (let i = 0; i < turns; i++) seq.commit([{ conversation: 'c0', bytes: bodies[i] }]);
    const seqMs = since(t0);
    seq.close();
    const bytes = dirBytes(dir);
    const conc = openFloor(path.join(dir, 'floor-conc.sqlite'), 'NORMAL');
    const perWriter = Math.ceil(turns / convs);
    const t1 = now();
    for (let k = 0; k < perWriter; k++) {
      const batch: FloorTurn[] = [];
      for (let c = 0; c < convs; c++) {
        const i = c * perWriter + k;
        if (i < Math.min(turns, (c + 1) * perWriter))
          batch.push({ conversation: `c${c}`, bytes: bodies[i] });
      }
      conc.commit(batch);
    }
    const concMs = since(t1);
    conc.close();
    fs.rmSync(dir, { recursive: true, force: true });
    return { seqMs, concMs, bytes, turns, convs };
  },

  /** The computer-use session: `turns` turns, each with one of the screenshots in `dir`. */
  async screens(dir: string, turns: number, images: number) {
    const pngs = SCREEN_FILES(dir, images).map((f) => fs.readFileSync(f).toString('base64'));
    const data = path.join(dir, 'arbor');
    fs.mkdirSync(data, { recursive: true });
    const store = openStore(data, 'NORMAL');
    const read = await openReadSide(store, data);
    const conversationId = randomUUID();
    const writer = createWriter(store, TENANT, conversationId);
    await writer.execute({ type: 'start', conversationId });
    const t0 = now();
    for (let i = 0; i < turns; i++) {
      const tip = writer.state.tip;
      await writer.execute({
        type: 'commitTurn',
        parentId: tip,
        expectedTip: tip,
        messages: parsedTurn(screenTurn(i, pngs[i % pngs.length])),
      });
    }
    const appendMs = since(t0);
    await read.caughtUp();
    const messages = (await readActiveBranch(read.queries, TENANT, conversationId)).length;
    await read.close();
    await store.close();
    const bytes = dirBytes(data);
    fs.rmSync(data, { recursive: true, force: true });
    return { appendMs, turns, messages, bytes };
  },

  async verify(dir: string) {
    const { conversationId, target } = JSON.parse(
      fs.readFileSync(path.join(dir, IDS_FILE), 'utf8'),
    ) as { conversationId: string; target: string };
    const store = openStore(dir, 'NORMAL');
    const read = await openReadSide(store, dir);
    await read.caughtUp();
    const leaf = read.queries.getConversation(TENANT, conversationId)?.tip ?? null;
    const logTip = (await createWriter(store, TENANT, conversationId).load()).tip;
    const branchMessages = (await readActiveBranch(read.queries, TENANT, conversationId)).length;
    await read.close();
    await store.close();
    return { leaf, target, kept: leaf === target && logTip === target, branchMessages };
  },
};

type Phase = keyof typeof arborPhases;

/** The write path alone: decide + append per turn, no projector; then one catch-up. */
async function appendLogOnly(dir: string, turns: number) {
  fs.mkdirSync(dir, { recursive: true });
  const store = openStore(dir, 'NORMAL');
  const conversationId = randomUUID();
  const writer = createWriter(store, TENANT, conversationId);
  await writer.execute({ type: 'start', conversationId });
  const t0 = now();
  for (let i = 0; i < turns; i++) {
    const tip = writer.state.tip;
    await writer.execute({
      type: 'commitTurn',
      parentId: tip,
      expectedTip: tip,
      messages: turnMessages(i),
    });
  }
  const appendMs = since(t0);
  const t1 = now();
  const read = await openReadSide(store, dir);
  await read.caughtUp();
  const projectMs = since(t1);
  await read.close();
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return { appendMs, projectMs };
}

const runChild = (args: string[]) => {
  const out = execFileSync(process.execPath, args, {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const lines = out.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]) as Record<string, unknown>;
};

const runPhase = <T>(
  side: 'arbor' | 'pi',
  /** `durable`: pi's side only. */
  phase: Phase | 'durable',
  dir: string,
  extra: (number | string)[] = [],
): T =>
  runChild(
    side === 'pi'
      ? [path.join(PEERS, 'pi-side.mjs'), phase, dir, ...extra.map(String)]
      : ['-r', '@swc-node/register', __filename, '--child', phase, dir, ...extra.map(String)],
  ) as T;

const ensurePeerInstalled = () => {
  if (fs.existsSync(path.join(PI_PACKAGE, 'package.json'))) return;
  console.log('installing the peer into bench/peers (npm --prefix bench/peers install) …');
  execFileSync('npm', ['--prefix', PEERS, 'install', '--no-audit', '--no-fund'], {
    stdio: 'inherit',
  });
};

interface AppendOut {
  appendMs: number;
  catchUpMs?: number;
  logOnly?: { appendMs: number; projectMs: number };
  turns: number;
  atSmall: Reads;
  atLarge: Reads;
  bytes: number;
}

interface OpenOut {
  openMs: number;
  openAndReadMs: number;
  messages: number;
  warm: Reads;
  moveMs: number;
  projectMovesMs?: number;
  movedTo: string;
  target: string;
  branchMessages: number;
}

interface ConcurrentOut {
  appendMs: number;
  cpuMs?: number;
  caughtUpMs?: number;
  turns: number;
  convs: number;
  messages: number;
}

interface FloorOut {
  seqMs: number;
  concMs: number;
  bytes: number;
}

interface DiskOut {
  appendMs: number;
  bytes: number;
}

interface VerifyOut {
  leaf: string | null;
  target: string;
  kept: boolean;
  branchMessages: number;
}

/** "2.10× better" when ours wins, "0.48× (worse)" when it does not. */
const better = (ours: number, theirs: number, higherIsBetter: boolean): string => {
  const r = higherIsBetter ? ours / theirs : theirs / ours;
  return Number.isFinite(r) ? `${fmt(r, 2)}×${r >= 1 ? '' : ' (worse)'}` : 'n/a';
};

const main = async () => {
  const args = process.argv.slice(2);
  const turns = numberFlag(args, 'turns', 5000);
  // The small read is taken on the way; with fewer messages than --read-at, at the last one.
  const readAt = Math.min(numberFlag(args, 'read-at', 2000), turns * 4);
  const reads = numberFlag(args, 'reads', 20);
  const convs = numberFlag(args, 'conversations', 32);
  const screenTurns = numberFlag(args, 'screen-turns', 200);
  const screenImages = numberFlag(args, 'screen-images', 4);
  console.log(
    `# bench:peers — Arbor vs pi SessionManager, in process (${new Date().toISOString()})`,
  );
  console.log(machineLine());
  ensurePeerInstalled();
  const piVersion = (
    JSON.parse(fs.readFileSync(path.join(PI_PACKAGE, 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
  console.log(
    `peer: @mariozechner/pi-coding-agent ${piVersion}; ${turns} turns × 4 messages; reads: p50 of ${reads}`,
  );
  if (flagValue(args, 'only') === 'open') {
    await openOnly(args, turns, readAt, reads);
    return;
  }
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-bench-peers-'));
  const piDir = path.join(base, 'pi');
  const arborDir = path.join(base, 'arbor');
  fs.mkdirSync(piDir);
  fs.mkdirSync(arborDir);
  try {
    // Alternating sides, phase by phase, so drift in the machine's load hits both alike.
    const piAppend = runPhase<AppendOut>('pi', 'append', piDir, [turns, readAt, reads]);
    const arAppend = runPhase<AppendOut>('arbor', 'append', arborDir, [turns, readAt, reads]);
    const piOpen = runPhase<OpenOut>('pi', 'open', piDir, [reads]);
    const arOpen = runPhase<OpenOut>('arbor', 'open', arborDir, [reads]);
    const piVerify = runPhase<VerifyOut>('pi', 'verify', piDir);
    const arVerify = runPhase<VerifyOut>('arbor', 'verify', arborDir);
    const piConc = runPhase<ConcurrentOut>('pi', 'concurrent', path.join(base, 'pi-conc'), [
      turns,
      convs,
    ]);
    const arConc = runPhase<ConcurrentOut>('arbor', 'concurrent', path.join(base, 'ar-conc'), [
      turns,
      convs,
    ]);
    if (arConc.messages !== turns * 4)
      throw new Error(`concurrent: ${arConc.messages} messages read back`);
    const floor = runPhase<FloorOut>('arbor', 'floor', path.join(base, 'floor'), [turns, convs]);
    fs.mkdirSync(path.join(base, 'pi-durable'));
    const piDurable = runPhase<DiskOut>('pi', 'durable', path.join(base, 'pi-durable'), [turns]);
    const screensDir = path.join(base, 'screens');
    fs.mkdirSync(screensDir);
    fs.mkdirSync(path.join(base, 'pi-screens'));
    const pngs = await writeScreens(screensDir, screenImages);
    const piScreens = runPhase<DiskOut>('pi', 'screens', path.join(base, 'pi-screens'), [
      screenTurns,
      ...pngs,
    ]);
    const arScreens = runPhase<DiskOut & { messages: number }>('arbor', 'screens', screensDir, [
      screenTurns,
      screenImages,
    ]);
    if (arScreens.messages !== screenTurns * 4)
      throw new Error(`screens: ${arScreens.messages} messages read back`);
    const pngBytes = pngs.reduce((sum, f) => sum + fs.statSync(f).size, 0) / pngs.length;

    const perSec = (ms: number) => (turns * 1000) / ms;
    const arWithProjections = (arAppend.appendMs + (arAppend.catchUpMs ?? 0)) as number;
    const logOnly = arAppend.logOnly ?? { appendMs: NaN, projectMs: NaN };
    const total = turns * 4;
    console.log(section('Side by side'));
    console.log(
      table(
        ['measure', 'Arbor', 'pi', 'Arbor vs pi'],
        [
          [
            `append: turns/s (${turns} turns × 4 messages)`,
            fmt(perSec(arAppend.appendMs), 0),
            fmt(perSec(piAppend.appendMs), 0),
            better(perSec(arAppend.appendMs), perSec(piAppend.appendMs), true),
          ],
          ['  (Arbor: projector live in the same process, as in the server)', '', '', ''],
          [
            '  …until reads see every turn (projections caught up)',
            fmt(perSec(arWithProjections), 0),
            fmt(perSec(piAppend.appendMs), 0),
            better(perSec(arWithProjections), perSec(piAppend.appendMs), true),
          ],
          [
            `append, ${convs} conversations concurrently: turns/s (all, until reads caught up)`,
            fmt(perSec(arConc.caughtUpMs ?? arConc.appendMs), 0),
            fmt(perSec(piConc.appendMs), 0),
            better(perSec(arConc.caughtUpMs ?? arConc.appendMs), perSec(piConc.appendMs), true),
          ],
          [
            '  …acknowledged (before the projector caught up)',
            fmt(perSec(arConc.appendMs), 0),
            fmt(perSec(piConc.appendMs), 0),
            better(perSec(arConc.appendMs), perSec(piConc.appendMs), true),
          ],
          [
            '  Arbor CPU per turn, this process (ms; the load-independent figure)',
            fmt((arConc.cpuMs ?? NaN) / turns, 3),
            '',
            '',
          ],
          [
            'append, log only (no projector running): turns/s',
            fmt(perSec(logOnly.appendMs), 0),
            fmt(perSec(piAppend.appendMs), 0),
            better(perSec(logOnly.appendMs), perSec(piAppend.appendMs), true),
          ],
          [
            `  then projecting all ${fmt(total, 0)} messages in one catch-up (ms)`,
            fmt(logOnly.projectMs, 0),
            '',
            '',
          ],
          [
            `read active branch at ${fmt(readAt, 0)} messages (ms, p50)`,
            fmt(arAppend.atSmall.p50),
            fmt(piAppend.atSmall.p50),
            better(arAppend.atSmall.p50, piAppend.atSmall.p50, false),
          ],
          [
            `read active branch at ${fmt(total, 0)} messages (ms, p50)`,
            fmt(arAppend.atLarge.p50),
            fmt(piAppend.atLarge.p50),
            better(arAppend.atLarge.p50, piAppend.atLarge.p50, false),
          ],
          [
            `cold open → ${fmt(arOpen.messages, 0)}-message branch in hand (ms)`,
            fmt(arOpen.openAndReadMs),
            fmt(piOpen.openAndReadMs),
            better(arOpen.openAndReadMs, piOpen.openAndReadMs, false),
          ],
          [
            'cold open → ready to append the next turn (ms)',
            fmt(arOpen.openMs),
            fmt(piOpen.openMs),
            better(arOpen.openMs, piOpen.openMs, false),
          ],
          [
            'read the branch again after opening (ms, p50)',
            fmt(arOpen.warm.p50),
            fmt(piOpen.warm.p50),
            better(arOpen.warm.p50, piOpen.warm.p50, false),
          ],
          [
            'move the branch tip (ms, p50 of 11)',
            fmt(arOpen.moveMs, 3),
            fmt(piOpen.moveMs, 3),
            better(arOpen.moveMs, piOpen.moveMs, false),
          ],
          [
            '  Arbor: read model re-materializes the 11 moves (10,000 rows each way, ms)',
            fmt(arOpen.projectMovesMs ?? NaN, 0),
            '',
            '',
          ],
          [
            'branch after the move (messages)',
            fmt(arOpen.branchMessages, 0),
            fmt(piOpen.branchMessages, 0),
            '',
          ],
          [
            'after a restart: branch tip where it was moved?',
            arVerify.kept ? 'yes' : 'NO',
            piVerify.kept ? 'yes' : 'no',
            '',
          ],
          [
            '  branch after the restart (messages)',
            fmt(arVerify.branchMessages, 0),
            fmt(piVerify.branchMessages, 0),
            '',
          ],
          [
            `on disk (MiB, ${fmt(total, 0)} messages: log + read models + indexes)`,
            fmt(arAppend.bytes / 2 ** 20, 1),
            fmt(piAppend.bytes / 2 ** 20, 1),
            `${fmt(arAppend.bytes / piAppend.bytes, 2)}× pi's bytes`,
          ],
        ],
      ),
    );
    console.log(
      `\npi's side measured here before: ~15,900 turns/s appended, ~29 ms to build a 20,000-message` +
        ` context, ~430 ms to reopen; a moved branch lost on reopen (leaf reverts to the last entry).` +
        `\nArbor's append includes parsing/validating each message and the turn rules; its projector` +
        ` runs live in the same process; its cold-open-to-append folds the log into the write state` +
        ` (${fmt((arOpen as OpenOut & { foldMs: number }).foldMs)} ms of it).`,
    );
    const floorSeq = perSec(floor.seqMs);
    const floorConc = perSec(floor.concMs);
    const arConcRate = perSec(arConc.caughtUpMs ?? arConc.appendMs);
    const arSeqRate = perSec(arWithProjections);
    const vs = (a: number, b: number) => `${fmt(a / b, 2)}×`;
    console.log(
      section(
        `The floor (bench/lib/floor.ts: parse + SHA-256 + AES-GCM + one insert per turn, a transaction per batch) and pi made durable`,
      ),
    );
    console.log(
      table(
        ['measure', 'Arbor', 'floor', 'pi', 'pi + fdatasync', 'Arbor / floor', 'Arbor / pi'],
        [
          [
            `append, ${convs} conversations (floor: batches of ${convs}), turns/s`,
            fmt(arConcRate, 0),
            fmt(floorConc, 0),
            fmt(perSec(piConc.appendMs), 0),
            '',
            vs(arConcRate, floorConc),
            vs(arConcRate, perSec(piConc.appendMs)),
          ],
          [
            'append, one conversation (floor: batches of 1), turns/s',
            fmt(arSeqRate, 0),
            fmt(floorSeq, 0),
            fmt(perSec(piAppend.appendMs), 0),
            fmt(perSec(piDurable.appendMs), 0),
            vs(arSeqRate, floorSeq),
            vs(arSeqRate, perSec(piAppend.appendMs)),
          ],
          [
            '  log only (no projector), turns/s',
            fmt(perSec(logOnly.appendMs), 0),
            fmt(floorSeq, 0),
            fmt(perSec(piAppend.appendMs), 0),
            '',
            vs(perSec(logOnly.appendMs), floorSeq),
            vs(perSec(logOnly.appendMs), perSec(piAppend.appendMs)),
          ],
          [
            `disk, ${fmt(total, 0)} messages (B per message)`,
            fmt(arAppend.bytes / total, 0),
            fmt(floor.bytes / total, 0),
            fmt(piAppend.bytes / total, 0),
            fmt(piDurable.bytes / total, 0),
            vs(arAppend.bytes, floor.bytes),
            vs(arAppend.bytes, piAppend.bytes),
          ],
        ],
      ),
    );
    console.log(
      `\nBoth at synchronous=NORMAL (no fsync per commit); "pi + fdatasync" is pi's SessionManager with` +
        ` one fdatasync of its file per turn (the durability of Arbor at FULL). The floor's turn bytes are` +
        ` the JSON of the same 4 messages; Arbor's side builds and parses them as objects.`,
    );
    console.log(
      section(
        `Computer use: ${screenTurns} turns, a ${fmt(pngBytes / 2 ** 20, 2)} MiB PNG screenshot every turn (${screenImages} distinct, resent)`,
      ),
    );
    console.log(
      table(
        ['measure', 'Arbor', 'pi', 'Arbor vs pi'],
        [
          [
            'on disk (MiB)',
            fmt(arScreens.bytes / 2 ** 20, 1),
            fmt(piScreens.bytes / 2 ** 20, 1),
            `${fmt(arScreens.bytes / piScreens.bytes, 2)}× pi's bytes`,
          ],
          [
            '  per screenshot sent (MiB; the PNG is this large as base64)',
            fmt(arScreens.bytes / screenTurns / 2 ** 20, 2),
            fmt(piScreens.bytes / screenTurns / 2 ** 20, 2),
            '',
          ],
          [
            'append, turns/s',
            fmt((screenTurns * 1000) / arScreens.appendMs, 0),
            fmt((screenTurns * 1000) / piScreens.appendMs, 0),
            better(arScreens.appendMs, piScreens.appendMs, false),
          ],
        ],
      ),
    );
    console.log(section('Summary'));
    console.log(
      verdictLines('bench:peers (issue #25)', [
        {
          target: `append, ${convs} conversations, reads caught up: ≥ 0.5× pi`,
          measured: `${fmt(arConcRate, 0)} vs ${fmt(perSec(piConc.appendMs), 0)} turns/s (${vs(arConcRate, perSec(piConc.appendMs))})`,
          pass: arConcRate >= 0.5 * perSec(piConc.appendMs),
        },
        {
          target: 'append, one conversation, projector live: ≥ 0.25× pi',
          measured: `${fmt(arSeqRate, 0)} vs ${fmt(perSec(piAppend.appendMs), 0)} turns/s (${vs(arSeqRate, perSec(piAppend.appendMs))}; pi + fdatasync ${fmt(perSec(piDurable.appendMs), 0)})`,
          pass: arSeqRate >= 0.25 * perSec(piAppend.appendMs),
        },
        {
          target: `append, ${convs} conversations: ≥ 0.5× the floor`,
          measured: `${fmt(arConcRate, 0)} vs ${fmt(floorConc, 0)} turns/s (${vs(arConcRate, floorConc)})`,
          pass: arConcRate >= 0.5 * floorConc,
        },
        {
          target: 'append, one conversation: ≥ 0.5× the floor',
          measured: `${fmt(arSeqRate, 0)} vs ${fmt(floorSeq, 0)} turns/s (${vs(arSeqRate, floorSeq)})`,
          pass: arSeqRate >= 0.5 * floorSeq,
        },
        {
          target: `computer use, ${screenTurns} screenshots: disk ≤ 2× pi's bytes`,
          measured: `${fmt(arScreens.bytes / 2 ** 20, 1)} vs ${fmt(piScreens.bytes / 2 ** 20, 1)} MiB (${vs(arScreens.bytes, piScreens.bytes)})`,
          pass: arScreens.bytes <= 2 * piScreens.bytes,
        },
      ]),
    );
    console.log(
      verdictLines('bench:peers', [
        {
          target: 'a moved branch survives a restart',
          measured: `Arbor ${arVerify.kept ? 'kept it' : 'LOST it'}; pi ${piVerify.kept ? 'kept it' : `lost it (leaf back at the last entry, ${fmt(piVerify.branchMessages, 0)} messages)`}`,
          pass: arVerify.kept,
        },
        {
          target: `append, ${convs} conversations concurrently, reads caught up: ≥ 1.0× pi's turns/s`,
          measured: `${fmt(perSec(arConc.caughtUpMs ?? arConc.appendMs), 0)} vs ${fmt(perSec(piConc.appendMs), 0)} turns/s (${fmt(piConc.appendMs / (arConc.caughtUpMs ?? arConc.appendMs), 2)}×)`,
          pass: (arConc.caughtUpMs ?? arConc.appendMs) <= piConc.appendMs,
        },
        {
          target: "append, one conversation, projector live: ≥ 0.5× pi's turns/s",
          measured: `${fmt(perSec(arWithProjections), 0)} vs ${fmt(perSec(piAppend.appendMs), 0)} turns/s (${fmt(piAppend.appendMs / arWithProjections, 2)}×)`,
          pass: piAppend.appendMs / arWithProjections >= 0.5,
        },
        {
          target: `warm read of the branch at ${fmt(readAt, 0)} messages: ≤ 1.0× pi's time`,
          measured: `${fmt(arAppend.atSmall.p50)} vs ${fmt(piAppend.atSmall.p50)} ms (${fmt(arAppend.atSmall.p50 / piAppend.atSmall.p50, 2)}×)`,
          pass: arAppend.atSmall.p50 <= piAppend.atSmall.p50,
        },
        {
          target: `warm read of the branch at ${fmt(total, 0)} messages: ≤ 1.0× pi's time`,
          measured: `${fmt(arAppend.atLarge.p50)} vs ${fmt(piAppend.atLarge.p50)} ms (${fmt(arAppend.atLarge.p50 / piAppend.atLarge.p50, 2)}×)`,
          pass: arAppend.atLarge.p50 <= piAppend.atLarge.p50,
        },
        {
          target: "re-read of the branch after opening: ≤ 1.0× pi's time",
          measured: `${fmt(arOpen.warm.p50)} vs ${fmt(piOpen.warm.p50)} ms (${fmt(arOpen.warm.p50 / piOpen.warm.p50, 2)}×)`,
          pass: arOpen.warm.p50 <= piOpen.warm.p50,
        },
        {
          target: 'cold open faster than pi (to the branch in hand)',
          measured: `${fmt(arOpen.openAndReadMs)} vs ${fmt(piOpen.openAndReadMs)} ms`,
          pass: arOpen.openAndReadMs < piOpen.openAndReadMs,
        },
        {
          target: `cold open → ready to append at ${fmt(total, 0)} messages: ≤ 0.5× pi's time`,
          measured: `${fmt(arOpen.openMs)} vs ${fmt(piOpen.openMs)} ms (${fmt(arOpen.openMs / piOpen.openMs, 2)}×)`,
          pass: arOpen.openMs <= 0.5 * piOpen.openMs,
        },
        {
          target: `disk for ${fmt(total, 0)} messages: ≤ 2× pi's bytes`,
          measured: `${fmt(arAppend.bytes / 2 ** 20, 1)} vs ${fmt(piAppend.bytes / 2 ** 20, 1)} MiB (${fmt(arAppend.bytes / piAppend.bytes, 2)}×)`,
          pass: arAppend.bytes <= 2 * piAppend.bytes,
        },
      ]),
    );
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
};

interface ColdOpenOut {
  openMs: number;
  storeOpenMs: number;
  foldMs: number;
  revision: number;
}

/**
 * `--only open [--open-reps 7] [--data <dir>]`: only the cold open → ready to append, repeated
 * in fresh processes alternating pi and Arbor (which goes first alternates too). The data is
 * written once by both sides' append phases into `--data` (kept, and reused when it is already
 * there) or a temp dir (removed).
 */
async function openOnly(args: string[], turns: number, readAt: number, reads: number) {
  const reps = numberFlag(args, 'open-reps', 7);
  const keep = flagValue(args, 'data');
  const base = keep ?? fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-bench-peers-'));
  const piDir = path.join(base, 'pi');
  const arborDir = path.join(base, 'arbor');
  try {
    if (!fs.existsSync(path.join(arborDir, IDS_FILE))) {
      fs.rmSync(base, { recursive: true, force: true });
      fs.mkdirSync(piDir, { recursive: true });
      fs.mkdirSync(arborDir, { recursive: true });
      runPhase<AppendOut>('pi', 'append', piDir, [turns, readAt, reads]);
      runPhase<AppendOut>('arbor', 'append', arborDir, [turns, readAt, reads]);
    } else console.log(`reusing the data in ${base}`);
    const pi: number[] = [];
    const ar: ColdOpenOut[] = [];
    for (let r = 0; r < reps; r++) {
      const runPi = () => pi.push(runPhase<OpenOut>('pi', 'open', piDir, [1]).openMs);
      const runAr = () => ar.push(runPhase<ColdOpenOut>('arbor', 'coldopen', arborDir));
      const order = r % 2 === 0 ? [runPi, runAr] : [runAr, runPi];
      for (const run of order) run();
    }
    const spread = (xs: number[]) =>
      `${fmt(median(xs))} (${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))})`;
    const arOpen = median(ar.map((a) => a.openMs));
    const piOpen = median(pi);
    console.log(section(`Cold open → ready to append, ${reps} alternating runs (median, min–max)`));
    console.log(
      table(
        ['measure', 'ms'],
        [
          ['pi: SessionManager.open', spread(pi)],
          ['Arbor: open → ready to append', spread(ar.map((a) => a.openMs))],
          [
            '  store open (log, chain, key store, snapshot file)',
            spread(ar.map((a) => a.storeOpenMs)),
          ],
          ['  write state loaded (snapshot + events after it)', spread(ar.map((a) => a.foldMs))],
          ['  Arbor / pi, run by run', ar.map((a, i) => fmt(a.openMs / pi[i], 2)).join(', ')],
        ],
      ),
    );
    console.log(section('Summary'));
    console.log(
      verdictLines('bench:peers', [
        {
          target: `cold open → ready to append at ${fmt(turns * 4, 0)} messages: ≤ 0.5× pi's time`,
          measured: `${fmt(arOpen)} vs ${fmt(piOpen)} ms (${fmt(arOpen / piOpen, 2)}×, medians of ${reps})`,
          pass: arOpen <= 0.5 * piOpen,
        },
      ]),
    );
  } finally {
    if (keep === undefined) fs.rmSync(base, { recursive: true, force: true });
  }
}

const child = async (argv: string[]) => {
  const [phase, dir, ...rest] = argv;
  const nums = rest.map(Number);
  const run = arborPhases[phase as Phase] as (d: string, ...n: number[]) => Promise<unknown>;
  if (!run) throw new Error(`unknown phase ${phase}`);
  console.log(JSON.stringify(await run(dir, ...nums)));
};

const argv = process.argv.slice(2);
(flagValue(argv, 'child') !== undefined
  ? child(argv.slice(argv.indexOf('--child') + 1))
  : main()
).catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
