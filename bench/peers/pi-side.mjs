// pi's side of `npm run bench:peers`: SessionManager from @mariozechner/pi-coding-agent, used
// in process the way pi uses it (appendMessage per message, buildSessionContext for the LLM
// context, branch() to move the leaf, SessionManager.open to resume). Each phase runs in its own
// process and prints one JSON line; bench/peers.bench.ts runs the phases and prints the tables.
//
//   node bench/peers/pi-side.mjs append <dir> <turns> <readAt> <reads>
//   node bench/peers/pi-side.mjs open   <dir> <reads>
//   node bench/peers/pi-side.mjs verify <dir>
//   node bench/peers/pi-side.mjs concurrent <dir> <turns> <conversations>
//   node bench/peers/pi-side.mjs durable <dir> <turns>          (append + fdatasync per turn)
//   node bench/peers/pi-side.mjs screens <dir> <turns> <png>... (computer use: a screenshot a turn)
import fs from 'node:fs';
import path from 'node:path';
import { SessionManager } from '@mariozechner/pi-coding-agent';

const [, , phase, dir, ...rest] = process.argv;
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const now = () => process.hrtime.bigint();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// The same words and sizes as Arbor's side (bench/lib/turns.ts, bench/peers.bench.ts).
const WORDS =
  'the agent reads file src/index.ts and runs tests before editing function returns error when input is empty so we check length first then commit'.split(
    ' ',
  );
const text = (bytes, seed) => {
  let out = '';
  for (let i = 0; out.length < bytes; i++) out += `${WORDS[(i * 7 + seed * 13) % WORDS.length]} `;
  return out.slice(0, bytes);
};
const usage = {
  input: 1200,
  output: 80,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 1280,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};
const assistant = (content, stopReason) => ({
  role: 'assistant',
  content,
  api: 'anthropic-messages',
  provider: 'anthropic',
  model: 'claude-sonnet-4-5',
  usage,
  stopReason,
  timestamp: Date.now(),
});

/** One agent turn of 4 messages: prompt, tool call, tool result, answer. */
const appendTurn = (sm, i) => {
  const callId = `toolu_${i}`;
  sm.appendMessage({
    role: 'user',
    content: [{ type: 'text', text: text(200, i) }],
    timestamp: Date.now(),
  });
  sm.appendMessage(
    assistant(
      [{ type: 'toolCall', id: callId, name: 'bash', arguments: { command: text(60, i + 1) } }],
      'toolUse',
    ),
  );
  sm.appendMessage({
    role: 'toolResult',
    toolCallId: callId,
    toolName: 'bash',
    content: [{ type: 'text', text: text(400, i + 2) }],
    isError: false,
    timestamp: Date.now(),
  });
  return sm.appendMessage(assistant([{ type: 'text', text: text(200, i + 3) }], 'stop'));
};

const readBranch = (sm, reads) => {
  const times = [];
  let count = 0;
  for (let r = 0; r < reads; r++) {
    const t0 = now();
    count = sm.buildSessionContext().messages.length;
    times.push(ms(t0));
  }
  return { p50: median(times), first: times[0], messages: count };
};

const sessionFile = (d) =>
  fs
    .readdirSync(d)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => path.join(d, f))[0];

if (phase === 'append') {
  const [turns, readAt, reads] = rest.map(Number);
  const sm = SessionManager.create(dir, dir);
  let appendMs = 0;
  let atSmall = null;
  const turnEnds = [];
  for (let i = 0; i < turns; i++) {
    const t0 = now();
    turnEnds.push(appendTurn(sm, i));
    appendMs += ms(t0);
    if ((i + 1) * 4 === readAt) atSmall = readBranch(sm, reads);
  }
  const atLarge = readBranch(sm, reads);
  fs.writeFileSync(path.join(dir, 'branch-target.txt'), turnEnds[Math.floor(turns / 2)]);
  console.log(
    JSON.stringify({
      appendMs,
      turns,
      atSmall,
      atLarge,
      bytes: fs.statSync(sm.getSessionFile()).size,
    }),
  );
} else if (phase === 'open') {
  const [reads] = rest.map(Number);
  const file = sessionFile(dir);
  const t0 = now();
  const sm = SessionManager.open(file, dir);
  const openMs = ms(t0);
  const ctx = sm.buildSessionContext();
  const openAndReadMs = ms(t0);
  const warm = readBranch(sm, reads);
  // Move the branch tip (the leaf) to an earlier message: the end of the middle turn.
  const target = fs.readFileSync(path.join(dir, 'branch-target.txt'), 'utf8');
  // Back and forth 11 times (as Arbor's side), ending on the earlier message; median reported.
  const tip = sm.getLeafId();
  const moves = [];
  for (let m = 0; m < 11; m++) {
    const t1 = now();
    sm.branch(m % 2 === 0 ? target : tip);
    moves.push(ms(t1));
  }
  const moveMs = median(moves);
  const leafAfterMove = sm.getLeafId();
  console.log(
    JSON.stringify({
      openMs,
      openAndReadMs,
      messages: ctx.messages.length,
      warm,
      moveMs,
      target,
      movedTo: leafAfterMove,
      branchMessages: sm.buildSessionContext().messages.length,
    }),
  );
} else if (phase === 'concurrent') {
  // The same turns spread over `convs` session files, round-robin (pi's writes are synchronous:
  // interleaving is what concurrency comes to in one process).
  const [turns, convs] = rest.map(Number);
  fs.mkdirSync(dir, { recursive: true });
  const sessions = Array.from({ length: convs }, (_, c) => {
    const d = path.join(dir, `s${c}`);
    fs.mkdirSync(d);
    return SessionManager.create(d, d);
  });
  const perWriter = Math.ceil(turns / convs);
  const t0 = now();
  for (let k = 0; k < perWriter; k++) {
    for (let c = 0; c < convs; c++) {
      const i = c * perWriter + k;
      if (i < Math.min(turns, (c + 1) * perWriter)) appendTurn(sessions[c], i);
    }
  }
  const appendMs = ms(t0);
  const messages = sessions.reduce((sum, sm) => sum + sm.buildSessionContext().messages.length, 0);
  fs.rmSync(dir, { recursive: true, force: true });
  console.log(JSON.stringify({ appendMs, turns, convs, messages }));
} else if (phase === 'durable') {
  // pi's own appends made durable as Arbor's FULL commits are: fdatasync of the session file
  // after every turn (pi itself never syncs; the file exists once the first assistant entry is in).
  const [turns] = rest.map(Number);
  const sm = SessionManager.create(dir, dir);
  let fd = null;
  const t0 = now();
  for (let i = 0; i < turns; i++) {
    appendTurn(sm, i);
    fd ??= fs.openSync(sm.getSessionFile(), 'r');
    fs.fdatasyncSync(fd);
  }
  const appendMs = ms(t0);
  fs.closeSync(fd);
  console.log(JSON.stringify({ appendMs, turns, bytes: fs.statSync(sm.getSessionFile()).size }));
} else if (phase === 'screens') {
  // A computer-use session: each turn the model asks for a screenshot, the tool returns a PNG of
  // ~1 MB (a few distinct images, resent), the model answers. Bytes on disk are what counts.
  const [turnsText, ...pngs] = rest;
  const turns = Number(turnsText);
  const images = pngs.map((f) => fs.readFileSync(f).toString('base64'));
  const sm = SessionManager.create(dir, dir);
  const t0 = now();
  for (let i = 0; i < turns; i++) {
    const callId = `toolu_${i}`;
    sm.appendMessage({
      role: 'user',
      content: [{ type: 'text', text: text(120, i) }],
      timestamp: Date.now(),
    });
    sm.appendMessage(
      assistant(
        [{ type: 'toolCall', id: callId, name: 'computer', arguments: { action: 'screenshot' } }],
        'toolUse',
      ),
    );
    sm.appendMessage({
      role: 'toolResult',
      toolCallId: callId,
      toolName: 'computer',
      content: [{ type: 'image', data: images[i % images.length], mimeType: 'image/png' }],
      isError: false,
      timestamp: Date.now(),
    });
    sm.appendMessage(assistant([{ type: 'text', text: text(200, i + 3) }], 'stop'));
  }
  const appendMs = ms(t0);
  console.log(JSON.stringify({ appendMs, turns, bytes: fs.statSync(sm.getSessionFile()).size }));
} else if (phase === 'verify') {
  // A restart: a new process opens the session and reports where its leaf is.
  const target = fs.readFileSync(path.join(dir, 'branch-target.txt'), 'utf8');
  const sm = SessionManager.open(sessionFile(dir), dir);
  const leaf = sm.getLeafId();
  console.log(
    JSON.stringify({
      leaf,
      target,
      kept: leaf === target,
      branchMessages: sm.buildSessionContext().messages.length,
    }),
  );
} else {
  console.error(`unknown phase ${phase}`);
  process.exit(2);
}
