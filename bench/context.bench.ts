/**
 * docs/TARGETS.md: context assembly for a 2,000-message conversation without new snapshot pages runs at
 * p50 under 20 ms; snapshot pages render at 10+ pages/s.
 *
 *   npm run bench:context -- [--turns 100] [--steps 9] [--reps 200]
 *
 * The conversation: `turns` turns of a prompt, `steps` tool calls with ~300-word results (one in
 * five carries a 1280×800 PNG screenshot) and a final answer — 2,000 messages by default, about
 * 1M tokens by our estimate. Per provider:
 * - cold: the first call over a 200k budget (every message tokenized once; decisions made);
 * - steady: the same call again `reps` times with those decisions in force (what a harness sees
 *   turn after turn): no new measurement, no new page;
 * - snapshot: a `snapshot`-mode call (pages rendered), then `reps` calls with it in force and
 *   the page cache warm.
 * Pages come from @arbor/snapshots when libs/snapshots exists, else from the test renderer
 * (which draws nothing: its pages/s is not a rendering figure, and says so).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CompactionDecision } from '@arbor/domain/compaction';
import type { Block, Message } from '@arbor/domain/messages';
import {
  type AssembleInput,
  type ProviderName,
  type RenderPages,
  assembleContext,
  createPageCache,
  createTokenCache,
} from '@arbor/context';
import {
  fmt,
  machineLine,
  numberFlag,
  section,
  summarize,
  table,
  timeMs,
  verdictLines,
} from './lib/report';
import { counterIds, filler } from '../libs/context/src/ladder/testing/builders';
import { fakeRenderer } from '../libs/context/src/ladder/testing/fake-pages';
import { chain, png, text, type MessageSpec } from '../libs/context/src/testing/conversation';

const P50_TARGET_MS = 20;
const PAGES_TARGET = 10;

const TARGETS: { provider: ProviderName; model: string }[] = [
  { provider: 'anthropic', model: 'claude-sonnet-4-5' },
  { provider: 'openai-chat', model: 'gpt-4o' },
  { provider: 'openai-responses', model: 'gpt-5' },
  { provider: 'gemini', model: 'gemini-2.5-pro' },
];

function conversation(turns: number, steps: number): Message[] {
  const screenshot = png(1280, 800);
  const specs: MessageSpec[] = [{ role: 'system', content: [text('You are a coding agent.')] }];
  let k = 0;
  for (let t = 1; t <= turns; t++) {
    specs.push({ role: 'user', content: [text(`Task ${t}: ${filler(30, t)}`)] });
    for (let s = 1; s <= steps; s++) {
      const id = `call_${t}_${s}`;
      specs.push({
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [
          text(`Step ${s}: ${filler(15, t * 31 + s)}`),
          { type: 'tool_use', id, name: 'bash', input: { command: `cat src/file_${t}_${s}.ts` } },
        ],
      });
      const result: Block[] = [text(filler(300, t * 1000 + s))];
      if (++k % 5 === 0) result.push(screenshot);
      specs.push({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: id, content: result as never }],
      });
    }
    specs.push({
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [text(`Done: ${filler(40, t + 5)}`)],
    });
  }
  return chain(specs).slice(1); // the system prompt goes in `system`, not the history
}

/** The real renderer when libs/snapshots is there; the test renderer otherwise. */
async function loadRenderer(): Promise<{ render: RenderPages; real: boolean }> {
  const file = path.resolve(__dirname, '../libs/snapshots/src/index.ts');
  if (fs.existsSync(file)) {
    const mod = (await import(file)) as { renderPages?: unknown };
    if (typeof mod.renderPages === 'function') {
      return { render: mod.renderPages as RenderPages, real: true };
    }
  }
  return { render: fakeRenderer().render, real: false };
}

interface Timed {
  render: RenderPages;
  pages: number;
  ms: number;
}

function timedRenderer(render: RenderPages): Timed {
  const timed: Timed = {
    pages: 0,
    ms: 0,
    render: async (textToRender, shape) => {
      const { ms, value } = await timeMs(() => render(textToRender, shape));
      timed.pages += value.length;
      timed.ms += ms;
      return value;
    },
  };
  return timed;
}

async function steady(
  input: AssembleInput,
  decisions: readonly CompactionDecision[],
  reps: number,
) {
  const samples: number[] = [];
  const cpu: number[] = [];
  let newDecisions = 0;
  for (let i = 0; i < reps; i++) {
    const before = process.cpuUsage();
    const { ms, value } = await timeMs(() =>
      assembleContext({ ...input, decisions: [...decisions], newId: counterIds(`r${i}_`) }),
    );
    const used = process.cpuUsage(before);
    cpu.push((used.user + used.system) / 1000);
    samples.push(ms);
    newDecisions += value.newDecisions.length;
  }
  if (newDecisions > 0) throw new Error('decisions in force should call for nothing new');
  return { ...summarize(samples), cpuP50: summarize(cpu).p50 };
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const turns = numberFlag(argv, 'turns', 100);
  const steps = numberFlag(argv, 'steps', 9);
  const reps = numberFlag(argv, 'reps', 200);
  const messages = conversation(turns, steps);
  const renderer = await loadRenderer();
  console.log(machineLine());
  console.log(
    `conversation: ${messages.length} messages, ${messages.filter((m) => JSON.stringify(m.content).includes('"image"')).length} with a screenshot; renderer: ${renderer.real ? '@arbor/snapshots' : 'test renderer (no pixels)'}`,
  );

  const rows: string[][] = [];
  const steadyP50s: number[] = [];
  let pages = 0;
  let renderMs = 0;
  for (const { provider, model } of TARGETS) {
    const tokenCache = createTokenCache();
    const pageCache = createPageCache(256 * 1024 * 1024);
    const timed = timedRenderer(renderer.render);
    const input: AssembleInput = {
      conversationId: 'bench',
      provider,
      model,
      messages,
      decisions: [],
      budgetTokens: 200_000,
      system: 'You are a coding agent.',
      mode: 'auto',
      renderPages: timed.render,
      pageCache,
      tokenCache,
      newId: counterIds('a'),
    };
    const cold = await timeMs(() => assembleContext(input));
    const auto = await steady(input, cold.value.newDecisions, reps);
    const snap = await timeMs(() =>
      assembleContext({
        ...input,
        mode: 'snapshot',
        decisions: cold.value.newDecisions,
        newId: counterIds('s'),
      }),
    );
    const inForce = [...cold.value.newDecisions, ...snap.value.newDecisions];
    const withSnapshot = await steady(input, inForce, reps);
    pages += timed.pages;
    renderMs += timed.ms;
    steadyP50s.push(auto.p50, withSnapshot.p50);
    rows.push([
      `${provider} (${model})`,
      fmt(cold.ms, 0),
      cold.value.newDecisions.map((d) => d.rung).join('+') || '-',
      fmt(auto.p50),
      fmt(auto.p99),
      fmt(auto.cpuP50),
      snap.value.newDecisions.map((d) => d.rung).join('+') || '-',
      String(timed.pages),
      fmt(withSnapshot.p50),
      fmt(withSnapshot.p99),
      fmt(withSnapshot.cpuP50),
      fmt(cold.value.receipt.estimatedTokens, 0),
    ]);
  }

  console.log(
    section('Assembly, ms (steady = decisions in force, no new pages; cpu = this process only)'),
  );
  console.log(
    table(
      [
        'provider',
        'cold',
        'decided',
        'steady p50',
        'steady p99',
        'cpu p50',
        'snapshot mode',
        'pages',
        'w/ snapshot p50',
        'w/ snapshot p99',
        'cpu p50',
        'tokens',
      ],
      rows,
    ),
  );
  const pagesPerSecond = renderMs > 0 ? (pages / renderMs) * 1000 : NaN;
  console.log(section('Snapshot pages'));
  console.log(
    `${pages} pages in ${fmt(renderMs, 0)} ms of rendering: ${fmt(pagesPerSecond, 1)} pages/s` +
      (renderer.real ? '' : ' (test renderer: no pixels drawn, not a rendering figure)'),
  );
  const worst = Math.max(...steadyP50s);
  console.log('');
  console.log(
    verdictLines('bench:context', [
      {
        target: `assembly of ${messages.length} messages without new pages, p50 < ${P50_TARGET_MS} ms (worst provider)`,
        measured: `${fmt(worst)} ms`,
        pass: worst < P50_TARGET_MS,
      },
      ...(renderer.real
        ? [
            {
              target: `snapshot pages render at ≥ ${PAGES_TARGET} pages/s`,
              measured: `${fmt(pagesPerSecond, 1)} pages/s`,
              pass: pagesPerSecond >= PAGES_TARGET,
            },
          ]
        : []),
    ]),
  );
  if (!renderer.real) console.log('n/a   bench:context: pages/s — libs/snapshots is not present');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
