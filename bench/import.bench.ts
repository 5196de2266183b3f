/**
 * `arbor import` of one linear chain must cost the same per message at 10k, 50k and 200k
 * messages (docs/TARGETS.md).
 *
 *   npm run bench:import -- [--sizes 10000,50000,200000] [--convert-only]
 *
 * Per size, a Claude Code session file of one linear chain is written to a temp dir: turns of a
 * prompt and an answer, every other one with a tool call and its result between (Claude Code's
 * record shape, as in test/fixtures/real). Then, side by side:
 * - baseline: read the file, split it into lines and `JSON.parse` each (what any reader pays);
 * - convert: `importSessionFile` (@arbor/importers: records → nodes → turns, repaired, validated);
 * - commit: the real `arbor import` in a child process into a fresh embedded data dir (default
 *   durability), its own "read and converted … committed in …" line read back.
 * Printed: time and per-message cost of each, each against the baseline of the same size, and the
 * per-message cost at every size against the smallest one (1× is linear).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { importSessionFile } from '@arbor/importers';
import {
  flagValue,
  fmt,
  hasFlag,
  machineLine,
  ratio,
  section,
  table,
  timeMs,
  verdictLines,
} from './lib/report';

const ROOT = path.resolve(__dirname, '..');
const argv = process.argv.slice(2);
const sizes = (flagValue(argv, 'sizes') ?? '10000,50000,200000')
  .split(',')
  .map((s) => Number(s.trim()))
  .filter((n) => Number.isInteger(n) && n >= 4);
const convertOnly = hasFlag(argv, 'convert-only');

/** A linear Claude Code session of `n` messages (rounded down to whole turns). */
const writeChain = (file: string, n: number): number => {
  const fd = fs.openSync(file, 'w');
  const t0 = Date.parse('2026-06-01T00:00:00.000Z');
  let parent: string | null = null;
  let i = 0;
  const put = (type: 'user' | 'assistant', message: unknown) => {
    const uuid = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    const rec = {
      parentUuid: parent,
      isSidechain: false,
      userType: 'external',
      cwd: '/work/chain',
      sessionId: 'b0000000-0000-4000-8000-000000000000',
      version: '2.1.0',
      type,
      message,
      uuid,
      timestamp: new Date(t0 + i * 1000).toISOString(),
    };
    fs.writeSync(fd, `${JSON.stringify(rec)}\n`);
    parent = uuid;
    i++;
  };
  const answer = (content: unknown[]) => ({
    id: `msg_${i}`,
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5-20250929',
    content,
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 100, output_tokens: 20 },
  });
  for (let turn = 0; i + (turn % 2 === 1 ? 4 : 2) <= n; turn++) {
    put('user', { role: 'user', content: `Question ${turn}: what does step ${turn} change?` });
    if (turn % 2 === 1) {
      const id = `toolu_${String(turn).padStart(20, '0')}`;
      put(
        'assistant',
        answer([
          { type: 'tool_use', id, name: 'Read', input: { file_path: `/work/chain/f${turn}.ts` } },
        ]),
      );
      put('user', {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: id, content: `export const step${turn} = ${turn};` },
        ],
      });
    }
    put('assistant', answer([{ type: 'text', text: `Step ${turn} sets a constant to ${turn}.` }]));
  }
  fs.closeSync(fd);
  return i;
};

const baseline = (file: string): number => {
  let n = 0;
  for (const line of fs.readFileSync(file, 'utf8').split('\n'))
    if (line !== '') n += JSON.parse(line) === null ? 0 : 1;
  return n;
};

/** The real CLI, its own timing line read back (child start-up and compilation excluded). */
const cliImport = (file: string, dataDir: string): { convertS: number; commitS: number } => {
  const out = execFileSync(
    process.execPath,
    ['-r', '@swc-node/register', path.join(ROOT, 'apps/cli/src/main.ts'), 'import', file],
    {
      cwd: ROOT,
      env: { ...process.env, ARBOR_DATA_DIR: dataDir },
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  const m = /read and converted in ([\d.]+) s; committed in ([\d.]+) s/.exec(out);
  if (m === null) throw new Error(`arbor import printed no timing line:\n${out}`);
  return { convertS: Number(m[1]), commitS: Number(m[2]) };
};

interface Row {
  messages: number;
  parseMs: number;
  convertMs: number;
  commitMs?: number;
}

const main = async () => {
  console.log(machineLine());
  console.log(`sizes: ${sizes.join(', ')} messages${convertOnly ? ' (convert only)' : ''}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-bench-import-'));
  const rows: Row[] = [];
  try {
    // Warm both sides' code (module loading, the JIT) on a small chain first.
    const warm = path.join(dir, 'warm.jsonl');
    writeChain(warm, 2000);
    baseline(warm);
    importSessionFile(warm);
    for (const size of sizes) {
      const file = path.join(dir, `chain-${size}.jsonl`);
      const messages = writeChain(file, size);
      baseline(file); // warm the page cache and the JIT for both sides
      const parse = await timeMs(() => baseline(file));
      const convert = await timeMs(() => importSessionFile(file));
      const got = convert.value.conversations[0]?.turns.reduce((n, t) => n + t.messages.length, 0);
      if (got !== messages) throw new Error(`imported ${got} of ${messages} messages`);
      const row: Row = { messages, parseMs: parse.ms, convertMs: convert.ms };
      if (!convertOnly)
        row.commitMs = cliImport(file, path.join(dir, `data-${size}`)).commitS * 1000;
      rows.push(row);
      console.log(
        `  ${messages} messages: JSON.parse ${fmt(parse.ms)} ms, convert ${fmt(convert.ms)} ms` +
          (row.commitMs === undefined ? '' : `, commit ${fmt(row.commitMs / 1000)} s`),
      );
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const us = (ms: number, n: number) => (ms * 1000) / n;
  const first = rows[0];
  console.log(
    section('per message, against JSON.parse of the same file and against the smallest size'),
  );
  console.log(
    table(
      [
        'messages',
        'JSON.parse µs',
        'convert µs',
        'convert ÷ parse',
        'convert ÷ smallest',
        ...(convertOnly ? [] : ['commit µs', 'commit ÷ parse', 'commit ÷ smallest']),
      ],
      rows.map((r) => [
        fmt(r.messages, 0),
        fmt(us(r.parseMs, r.messages)),
        fmt(us(r.convertMs, r.messages)),
        ratio(r.convertMs, r.parseMs),
        ratio(us(r.convertMs, r.messages), us(first.convertMs, first.messages)),
        ...(r.commitMs === undefined || first.commitMs === undefined
          ? []
          : [
              fmt(us(r.commitMs, r.messages)),
              ratio(r.commitMs, r.parseMs),
              ratio(us(r.commitMs, r.messages), us(first.commitMs, first.messages)),
            ]),
      ]),
    ),
  );
  // Linear: the per-message cost at the largest size within 2× of the smallest, measured
  // against the same run's JSON.parse (so a machine that slows down overall does not count).
  const last = rows[rows.length - 1];
  const norm = (ms: number | undefined, r: Row) => (ms ?? NaN) / r.parseMs;
  const verdicts = [
    {
      target: `convert is linear: (convert ÷ parse) at ${last.messages} ≤ 2× that at ${first.messages}`,
      measured: ratio(norm(last.convertMs, last), norm(first.convertMs, first)),
      pass: norm(last.convertMs, last) <= 2 * norm(first.convertMs, first),
    },
    ...(convertOnly
      ? []
      : [
          {
            target: `commit is linear: per message at ${last.messages} ≤ 2× that at ${first.messages}`,
            measured: ratio(
              us(last.commitMs ?? NaN, last.messages),
              us(first.commitMs ?? NaN, first.messages),
            ),
            pass:
              us(last.commitMs ?? NaN, last.messages) <=
              2 * us(first.commitMs ?? NaN, first.messages),
          },
        ]),
  ];
  console.log(`\n${verdictLines('bench:import', verdicts)}`);
};

void main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
