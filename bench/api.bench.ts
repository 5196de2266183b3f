/**
 * docs/TARGETS.md, over HTTP: turn commits/s and latency at 32 concurrent clients across many tenants and
 * conversations, tip moves at depth 10 vs 10,000, and the server's peak memory. The real server
 * runs as a child process on a fresh data dir (synchronous=FULL by default, as shipped).
 *
 *   npm run bench:api -- [--duration 20] [--connections 32] [--tenants 32] [--conversations 256]
 *                        [--turn-bytes 1024] [--moves 500] [--depth 10000] [--sync FULL|NORMAL]
 *                        [--group-commit on|off] [--profile] [--no-build]
 *                        [--encryption-compare-seconds 10] [--no-encryption-compare]
 *
 * Load: autocannon, one keep-alive connection per client; each connection owns its conversations
 * (one tenant per connection) and chains every turn from the tip its own last commit returned
 * (parentId = expectedTip = that tip), so every commit is valid and none conflicts. `--profile`
 * runs the server under `node --cpu-prof` and prints where its self time went.
 *
 * The encryption's cost (ARBOR_ENCRYPTION, content sealed per conversation; on by default): after
 * the main run, the same commit load and the same page read run against a server with it off and
 * one with it on, each on a fresh data dir, alternating off/on twice so drift in the machine's
 * load hits both alike, and the ratios on/off are printed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { latestProfile, renderProfile } from './lib/cpuprofile';
import { createConversation, createJsonClient, createTenant, type JsonClient } from './lib/http';
import {
  flagValue,
  fmt,
  hasFlag,
  machineLine,
  median,
  mib,
  numberFlag,
  ratio,
  section,
  summarize,
  table,
  verdictLines,
} from './lib/report';
import { ADMIN_KEY, buildServer, OUT, ROOT, startServer } from './lib/server';
import { longTurnBody, turnBody } from './lib/turns';

const COMMITS_TARGET = 2000;
const P99_TARGET_MS = 50;
/** Tip moves at depth 10,000 may cost at most this much more than at depth 10 (noise margin). */
const DEPTH_RATIO_LIMIT = 1.25;

interface Slot {
  key: string;
  id: string;
  tip: string | null;
}

const args = process.argv.slice(2);
const opts = {
  duration: numberFlag(args, 'duration', 20),
  connections: numberFlag(args, 'connections', 32),
  tenants: numberFlag(args, 'tenants', 32),
  conversations: numberFlag(args, 'conversations', 256),
  turnBytes: numberFlag(args, 'turn-bytes', 1024),
  moves: numberFlag(args, 'moves', 500),
  depth: numberFlag(args, 'depth', 10_000),
  sync: (flagValue(args, 'sync') ?? 'FULL').toUpperCase(),
  groupCommit: flagValue(args, 'group-commit') ?? 'on',
  profile: hasFlag(args, 'profile'),
  noBuild: hasFlag(args, 'no-build'),
  encryptionSeconds: hasFlag(args, 'no-encryption-compare')
    ? 0
    : numberFlag(args, 'encryption-compare-seconds', 10),
};

/** Runs `tasks` with at most `width` in flight. */
const pool = async <T>(width: number, tasks: (() => Promise<T>)[]): Promise<T[]> => {
  const out: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      out[i] = await tasks[i]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, tasks.length) }, worker));
  return out;
};

const setUp = async (http: JsonClient): Promise<Slot[]> => {
  const tenants = await pool(
    8,
    Array.from({ length: opts.tenants }, (_, i) => () => createTenant(http, ADMIN_KEY, `t${i}`)),
  );
  return pool(
    16,
    Array.from({ length: opts.conversations }, (_, i) => async () => {
      const key = tenants[i % tenants.length].apiKey;
      return { key, id: await createConversation(http, key), tip: null };
    }),
  );
};

/** Each connection gets its own conversations, all of one tenant when tenants ≥ connections. */
const slotsPerConnection = (slots: Slot[]): Slot[][] => {
  const groups: Slot[][] = Array.from({ length: opts.connections }, () => []);
  slots.forEach((s, i) => groups[i % opts.connections].push(s));
  return groups;
};

/** After a run stops mid-request, the server may have committed a turn the client never saw. */
const resyncTips = async (http: JsonClient, slots: Slot[]) => {
  // Requests the load generator abandoned at its deadline may still be committing: let them land.
  await new Promise((r) => setTimeout(r, 1000));
  await pool(
    16,
    slots.map((s) => async () => {
      const c = await http.ok<{ tip: string | null }>('GET', `/v1/conversations/${s.id}`, {
        key: s.key,
      });
      s.tip = c.tip;
    }),
  );
};

/** The first few non-2xx answers, to say what went wrong. */
const failures: string[] = [];

const runCommits = (baseUrl: string, groups: Slot[][], seconds: number) =>
  new Promise<autocannon.Result>((resolve, reject) => {
    let nextGroup = 0;
    autocannon(
      {
        url: baseUrl,
        connections: opts.connections,
        duration: seconds,
        timeout: 30,
        setupClient: (client) => {
          const mine = groups[nextGroup++ % groups.length];
          let turn = 0;
          let current = mine[0];
          client.setRequests([
            {
              method: 'POST',
              setupRequest: (req) => {
                current = mine[turn++ % mine.length];
                return {
                  ...req,
                  method: 'POST',
                  path: `/v1/conversations/${current.id}/turns`,
                  headers: {
                    authorization: `Bearer ${current.key}`,
                    'content-type': 'application/json',
                  },
                  body: JSON.stringify(turnBody(current.tip, current.tip, opts.turnBytes, turn)),
                };
              },
              onResponse: (status, body) => {
                if (status >= 200 && status < 300) current.tip = (JSON.parse(body) as Slot).tip;
                else {
                  if (failures.length < 5) failures.push(`${status} ${body.slice(0, 300)}`);
                  // A client's answer to stale_tip: chain from the tip the problem names (it is
                  // still counted as a non-2xx), instead of repeating the same stale commit.
                  if (status === 409) {
                    const tip = (JSON.parse(body) as { tip?: string | null }).tip;
                    if (tip !== undefined) current.tip = tip;
                  }
                }
              },
            },
          ]);
        },
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });

/** A conversation whose tip sits at `depth`, with a sibling branch of the same depth. */
const deepConversation = async (http: JsonClient, key: string, depth: number) => {
  const id = await createConversation(http, key);
  let tip: string | null = null;
  let remaining = depth - 2;
  while (remaining > 0) {
    const pairs = Math.min(500, remaining / 2);
    const r: { tip: string } = await http.ok('POST', `/v1/conversations/${id}/turns`, {
      key,
      body: longTurnBody(tip, pairs, 100),
    });
    tip = r.tip;
    remaining -= pairs * 2;
  }
  const branch = async (expectedTip: string | null) =>
    (
      await http.ok<{ tip: string }>('POST', `/v1/conversations/${id}/turns`, {
        key,
        body: turnBody(tip, expectedTip, 400, depth),
      })
    ).tip;
  const a = await branch(tip);
  const b = await branch(a);
  return { id, key, targets: [a, b] as const };
};

const moveTips = async (http: JsonClient, key: string) => {
  const shallow = await deepConversation(http, key, 10);
  const deep = await deepConversation(http, key, opts.depth);
  const samples = { shallow: [] as number[], deep: [] as number[] };
  let errors = 0;
  const warmup = 50;
  // Interleaved, so drift in the machine's load hits both depths alike.
  for (let i = 0; i < opts.moves + warmup; i++) {
    for (const [name, c] of [
      ['shallow', shallow],
      ['deep', deep],
    ] as const) {
      const r = await http.call('PUT', `/v1/conversations/${c.id}/tip`, {
        key,
        body: { messageId: c.targets[i % 2] },
      });
      if (r.status !== 200) errors++;
      if (i >= warmup) samples[name].push(r.ms);
    }
  }
  return { shallow: summarize(samples.shallow), deep: summarize(samples.deep), errors };
};

/** A conversation of `messages` messages on one branch (turns of up to 500 messages of ~`bytes`). */
const readConversation = async (http: JsonClient, key: string, messages: number, bytes: number) => {
  const id = await createConversation(http, key);
  let tip: string | null = null;
  let remaining = messages;
  while (remaining > 0) {
    const pairs = Math.min(250, remaining / 2);
    const r: { tip: string } = await http.ok('POST', `/v1/conversations/${id}/turns`, {
      key,
      body: longTurnBody(tip, pairs, bytes),
    });
    tip = r.tip;
    remaining -= pairs * 2;
  }
  return id;
};

const READ_PAGE = 1000;
const CONTEXT_MESSAGES = 2000;
const READS = 100;
const contextRequest = {
  provider: 'anthropic',
  model: 'claude-sonnet-4-5',
  budgetTokens: 200_000,
  maxTokens: 4096,
};

/** The two read probes: one page of the branch, one context for the model. */
const readProbes = (page: { id: string; key: string }, ctx: { id: string; key: string }) => ({
  page: (http: JsonClient) =>
    http.call('GET', `/v1/conversations/${page.id}/messages?limit=${READ_PAGE}`, { key: page.key }),
  context: (http: JsonClient) =>
    http.call('POST', `/v1/conversations/${ctx.id}/context`, {
      key: ctx.key,
      body: contextRequest,
    }),
});

const warmReads = async (
  http: JsonClient,
  probe: (http: JsonClient) => Promise<{ status: number; ms: number }>,
) => {
  const samples: number[] = [];
  let errors = 0;
  for (let i = 0; i < READS + 10; i++) {
    const r = await probe(http);
    if (r.status !== 200) errors++;
    if (i >= 10) samples.push(r.ms);
  }
  return { ...summarize(samples), errors };
};

interface EncryptionSample {
  commitsPerSec: number;
  p50: number;
  p99: number;
  cpuPerCommit: number;
  pageP50: number;
}

/** One fresh server with ARBOR_ENCRYPTION=`on|off`: the commit load, then a warm page read. */
const encryptionSample = async (
  entry: string,
  env: Record<string, string>,
  encryption: 'on' | 'off',
): Promise<EncryptionSample> => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `arbor-bench-api-enc-${encryption}-`));
  const server = await startServer({
    main: entry,
    dataDir: dir,
    env: { ...env, ARBOR_ENCRYPTION: encryption },
  });
  const http = createJsonClient(server.baseUrl, 16);
  try {
    const slots = await setUp(http);
    const groups = slotsPerConnection(slots);
    await runCommits(server.baseUrl, groups, 2);
    await resyncTips(http, slots);
    const cpu0 = server.cpuMs();
    const r = await runCommits(server.baseUrl, groups, opts.encryptionSeconds);
    const cpu = server.cpuMs() - cpu0;
    const page = {
      id: await readConversation(http, slots[1].key, READ_PAGE, 400),
      key: slots[1].key,
    };
    const reads = await warmReads(http, readProbes(page, page).page);
    return {
      commitsPerSec: r['2xx'] / r.duration,
      p50: r.latency.p50,
      p99: r.latency.p99,
      cpuPerCommit: cpu / Math.max(1, r['2xx']),
      pageP50: reads.p50,
    };
  } finally {
    http.close();
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
};

/** Off, on, off, on; each figure the median of its two runs. */
const encryptionCost = async (entry: string, env: Record<string, string>) => {
  const runs: Record<'on' | 'off', EncryptionSample[]> = { on: [], off: [] };
  for (const mode of ['off', 'on', 'off', 'on'] as const) {
    runs[mode].push(await encryptionSample(entry, env, mode));
  }
  const pick = (mode: 'on' | 'off', k: keyof EncryptionSample) =>
    median(runs[mode].map((x) => x[k]));
  return {
    on: (k: keyof EncryptionSample) => pick('on', k),
    off: (k: keyof EncryptionSample) => pick('off', k),
  };
};

const main = async () => {
  console.log(`# bench:api — the real server over HTTP (${new Date().toISOString()})`);
  console.log(machineLine());
  const entry = buildServer({ skip: opts.noBuild });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-bench-api-'));
  const profileDir = path.join(OUT, 'profiles');
  const serverEnv = {
    ARBOR_SQLITE_SYNCHRONOUS: opts.sync,
    ARBOR_SQLITE_GROUP_COMMIT: opts.groupCommit,
  };
  let server = await startServer({
    main: entry,
    dataDir,
    env: serverEnv,
    nodeArgs: opts.profile
      ? [
          '--cpu-prof',
          `--cpu-prof-dir=${profileDir}`,
          '--require',
          path.join(ROOT, 'bench', 'lib', 'exit-on-sigusr2.cjs'),
        ]
      : [],
  });
  let http = createJsonClient(server.baseUrl, 16);
  try {
    console.log(
      `server pid ${server.pid}, synchronous=${opts.sync}, group commit ${opts.groupCommit}${opts.profile ? ', --cpu-prof' : ''}; ` +
        `${opts.tenants} tenants, ${opts.conversations} conversations, ${opts.connections} connections, ` +
        `turns of ~${opts.turnBytes} B (user + assistant)`,
    );
    const slots = await setUp(http);
    const groups = slotsPerConnection(slots);
    await runCommits(server.baseUrl, groups, 3); // warm-up: JIT, caches, first turns
    await resyncTips(http, slots);
    const cpu0 = server.cpuMs();
    const selfCpu0 = process.cpuUsage();
    const r = await runCommits(server.baseUrl, groups, opts.duration);
    const serverCpuMs = server.cpuMs() - cpu0;
    const serverCpuPerCommit = serverCpuMs / Math.max(1, r['2xx']);
    const serverCoreShare = serverCpuMs / (r.duration * 1000);
    const selfCpu = process.cpuUsage(selfCpu0);
    const loadCpuPerCommit = (selfCpu.user + selfCpu.system) / 1000 / Math.max(1, r['2xx']);
    const commitsPerSec = r['2xx'] / r.duration;
    const afterLoad = server.memory();

    const moves = await moveTips(http, slots[0].key);
    const mem = server.memory();

    // Reads over HTTP: a 1,000-message page of the branch and a context on 2,000 messages, warm
    // (p50/p99 of 100 after 10), then the first of each after a restart (two restarts, so each
    // probe is the first request the new process serves).
    const pageConv = {
      id: await readConversation(http, slots[1].key, READ_PAGE, 400),
      key: slots[1].key,
    };
    const ctxConv = {
      id: await readConversation(http, slots[2].key, CONTEXT_MESSAGES, 400),
      key: slots[2].key,
    };
    const probes = readProbes(pageConv, ctxConv);
    const pageWarm = await warmReads(http, probes.page);
    const contextWarm = await warmReads(http, probes.context);
    const firstAfterRestart = async (
      probe: (h: JsonClient) => Promise<{ status: number; ms: number }>,
    ) => {
      http.close();
      await server.stop(opts.profile ? 'SIGUSR2' : 'SIGTERM');
      server = await startServer({ main: entry, dataDir, env: serverEnv });
      http = createJsonClient(server.baseUrl, 16);
      const r = await probe(http);
      return { ms: r.ms, ok: r.status === 200 };
    };
    const pageFirst = await firstAfterRestart(probes.page);
    const contextFirst = await firstAfterRestart(probes.context);
    const readErrors =
      pageWarm.errors + contextWarm.errors + (pageFirst.ok ? 0 : 1) + (contextFirst.ok ? 0 : 1);

    console.log(section(`Turn commits, ${opts.connections} clients, ${fmt(r.duration, 1)} s`));
    console.log(
      table(
        ['metric', 'measured', 'target'],
        [
          ['turn commits/s', fmt(commitsPerSec, 0), `≥ ${COMMITS_TARGET}`],
          ['latency p50 (ms)', fmt(r.latency.p50), ''],
          ['latency p97.5 (ms)', fmt(r.latency.p97_5), ''],
          ['latency p99 (ms)', fmt(r.latency.p99), `< ${P99_TARGET_MS}`],
          ['latency max (ms)', fmt(r.latency.max), ''],
          ['commits (2xx)', String(r['2xx']), ''],
          ['non-2xx', String(r.non2xx), '0'],
          ['errors / timeouts', `${r.errors} / ${r.timeouts}`, '0'],
          ['server CPU per commit (ms)', fmt(serverCpuPerCommit, 3), ''],
          [
            '  → ceiling if the server had one whole core (commits/s)',
            fmt(1000 / serverCpuPerCommit, 0),
            '',
          ],
          ['server CPU used during the run (cores)', fmt(serverCoreShare, 2), ''],
          ['load generator CPU per commit (ms)', fmt(loadCpuPerCommit, 3), ''],
        ],
      ),
    );
    console.log(section(`Tip moves (PUT tip between sibling branches), ${opts.moves} each`));
    console.log(
      table(
        ['depth', 'p50 (ms)', 'p99 (ms)', 'mean (ms)'],
        [
          ['10', fmt(moves.shallow.p50), fmt(moves.shallow.p99), fmt(moves.shallow.mean)],
          [fmt(opts.depth, 0), fmt(moves.deep.p50), fmt(moves.deep.p99), fmt(moves.deep.mean)],
          [
            'ratio deep/shallow',
            ratio(moves.deep.p50, moves.shallow.p50),
            ratio(moves.deep.p99, moves.shallow.p99),
            ratio(moves.deep.mean, moves.shallow.mean),
          ],
        ],
      ),
    );
    if (moves.errors > 0) console.log(`tip move errors: ${moves.errors}`);
    if (failures.length > 0) console.log(`first non-2xx answers:\n  ${failures.join('\n  ')}`);
    console.log(`status codes: ${JSON.stringify(r.statusCodeStats ?? {})}`);
    console.log(section('Reads over HTTP (sequential, one client)'));
    console.log(
      table(
        ['request', 'warm p50 (ms)', 'warm p99 (ms)', 'first after a restart (ms)'],
        [
          [
            `GET …/messages?limit=${READ_PAGE} (a ${fmt(READ_PAGE, 0)}-message page)`,
            fmt(pageWarm.p50),
            fmt(pageWarm.p99),
            fmt(pageFirst.ms),
          ],
          [
            `POST …/context on ${fmt(CONTEXT_MESSAGES, 0)} messages (anthropic, 200k budget)`,
            fmt(contextWarm.p50),
            fmt(contextWarm.p99),
            fmt(contextFirst.ms),
          ],
        ],
      ),
    );
    console.log(section('Server memory'));
    console.log(
      table(
        ['when', 'VmRSS', 'VmHWM (peak)'],
        [
          ['after the commit load', mib(afterLoad.rssKiB), mib(afterLoad.peakKiB)],
          ['at the end', mib(mem.rssKiB), mib(mem.peakKiB)],
        ],
      ),
    );
    const depthRatio = moves.deep.p50 / moves.shallow.p50;
    if (opts.encryptionSeconds > 0) {
      const cost = await encryptionCost(entry, serverEnv);
      console.log(
        section(
          `Encryption (ARBOR_ENCRYPTION) on vs off: fresh servers, off/on/off/on, ${opts.encryptionSeconds} s of commits each, medians`,
        ),
      );
      const row = (label: string, k: keyof EncryptionSample, digits = 2) => [
        label,
        fmt(cost.off(k), digits),
        fmt(cost.on(k), digits),
        ratio(cost.on(k), cost.off(k)),
      ];
      console.log(
        table(
          ['metric', 'off', 'on', 'on/off'],
          [
            row('turn commits/s', 'commitsPerSec', 0),
            row('commit p50 (ms)', 'p50'),
            row('commit p99 (ms)', 'p99'),
            row('server CPU per commit (ms)', 'cpuPerCommit', 3),
            row(`GET …/messages?limit=${READ_PAGE} warm p50 (ms)`, 'pageP50'),
          ],
        ),
      );
    }
    console.log(section('Summary'));
    console.log(
      verdictLines('bench:api', [
        {
          target: `≥ ${COMMITS_TARGET} turn commits/s at ${opts.connections} clients`,
          measured: `${fmt(commitsPerSec, 0)}/s`,
          pass: commitsPerSec >= COMMITS_TARGET,
        },
        {
          target: `commit p99 < ${P99_TARGET_MS} ms`,
          measured: `${fmt(r.latency.p99)} ms`,
          pass: r.latency.p99 < P99_TARGET_MS,
        },
        {
          target: 'no errors under load (non-2xx, socket errors, timeouts)',
          measured: `${r.non2xx + r.errors + moves.errors}`,
          pass: r.non2xx + r.errors + moves.errors === 0,
        },
        {
          target: `reads answer 200 (GET …/messages page of ${READ_PAGE}, POST …/context on ${CONTEXT_MESSAGES})`,
          measured: `${readErrors} errors`,
          pass: readErrors === 0,
        },
        {
          target: `tip move at depth ${opts.depth} costs the same as at 10 (p50 ratio ≤ ${DEPTH_RATIO_LIMIT})`,
          measured: `${fmt(moves.deep.p50)} vs ${fmt(moves.shallow.p50)} ms (${ratio(moves.deep.p50, moves.shallow.p50)})`,
          pass: depthRatio <= DEPTH_RATIO_LIMIT,
        },
      ]),
    );
    console.log(`info  bench:api: server peak RSS ${mib(mem.peakKiB)}`);
    console.log(
      `info  bench:api: GET …/messages (${READ_PAGE}) p50/p99 ${fmt(pageWarm.p50)}/${fmt(pageWarm.p99)} ms warm, ` +
        `${fmt(pageFirst.ms)} ms first after a restart; POST …/context (${CONTEXT_MESSAGES}) p50/p99 ` +
        `${fmt(contextWarm.p50)}/${fmt(contextWarm.p99)} ms warm, ${fmt(contextFirst.ms)} ms first after a restart`,
    );
  } finally {
    http.close();
    await server.stop(opts.profile ? 'SIGUSR2' : 'SIGTERM');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  if (opts.profile) {
    const file = latestProfile(profileDir);
    console.log(section('Where the server spent its time'));
    console.log(file ? renderProfile(file) : 'no profile was written');
  }
};

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
