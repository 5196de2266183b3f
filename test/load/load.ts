/**
 * Load run: the real server as a child process on 127.0.0.1, N tenants each committing turns and
 * reading (messages, tree, context) in a bounded loop for `--seconds` (default 60). Prints
 * throughput, p50/p99 per kind and errors; exits 1 if any request got a 5xx or a transport error.
 * Usage: npm run test:load -- [--seconds 15] [--tenants 50] [--skip-build]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  createConversation,
  createJsonClient,
  createTenant,
  type JsonClient,
  type JsonResponse,
} from '../../bench/lib/http';
import { ADMIN_KEY, buildServer, startServer } from '../../bench/lib/server';

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};

const SECONDS = arg('seconds', 60);
const TENANTS = arg('tenants', 50);
const KINDS = ['turn', 'messages', 'tree', 'context'] as const;
type Kind = (typeof KINDS)[number];

interface Stats {
  ms: Record<Kind, number[]>;
  errors: string[];
  rejected: number;
  firstRejection?: string;
}

const percentile = (sorted: number[], p: number): number =>
  sorted.length === 0
    ? 0
    : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

const turnBody = (tip: string | null, n: number) => ({
  parentId: tip,
  messages: [
    { role: 'user', content: [{ type: 'text', text: `question ${n} `.repeat(20) }] },
    { role: 'assistant', content: [{ type: 'tool_use', id: `t${n}`, name: 'run', input: { n } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${n}`, content: 'ok' }] },
    { role: 'assistant', content: [{ type: 'text', text: `answer ${n} `.repeat(20) }] },
  ],
});

const requestFor = (
  kind: Kind,
  base: string,
  tip: string | null,
  n: number,
): [string, string, unknown] => {
  if (kind === 'turn') return ['POST', `${base}/turns`, turnBody(tip, n)];
  if (kind === 'messages') return ['GET', `${base}/messages?limit=50`, undefined];
  if (kind === 'tree') return ['GET', `${base}/tree`, undefined];
  return [
    'POST',
    `${base}/context`,
    { provider: 'anthropic', model: 'claude', budgetTokens: 200_000 },
  ];
};

const tenantLoop = async (client: JsonClient, key: string, deadline: number, s: Stats) => {
  const conv = await createConversation(client, key);
  const base = `/v1/conversations/${conv}`;
  let tip: string | null = null;
  for (let n = 0; Date.now() < deadline && n < 100_000; n++) {
    const kind = KINDS[n % KINDS.length];
    const [method, url, body] = requestFor(kind, base, tip, n);
    try {
      const r: JsonResponse<{ tip?: string }> = await client.call<{ tip?: string }>(method, url, {
        key,
        body,
      });
      s.ms[kind].push(r.ms);
      if (r.status >= 500)
        s.errors.push(`${kind} ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
      else if (r.status >= 400) {
        s.rejected++;
        s.firstRejection ??= `${kind} ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`;
      }
      if (kind === 'turn' && r.status === 201 && r.body.tip) tip = r.body.tip;
    } catch (e) {
      s.errors.push(`${kind} transport: ${(e as Error).message}`);
    }
  }
};

const main = async () => {
  const entry = buildServer({ skip: process.argv.includes('--skip-build') });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-load-'));
  const server = await startServer({ main: entry, dataDir });
  const client = createJsonClient(server.baseUrl, TENANTS);
  const s: Stats = {
    ms: { turn: [], messages: [], tree: [], context: [] },
    errors: [],
    rejected: 0,
  };
  try {
    const keys: string[] = [];
    for (let i = 0; i < TENANTS; i++)
      keys.push((await createTenant(client, ADMIN_KEY, `load-${i}`)).apiKey);
    const started = Date.now();
    const deadline = started + SECONDS * 1000;
    await Promise.all(keys.map((k) => tenantLoop(client, k, deadline, s)));
    const elapsed = (Date.now() - started) / 1000;
    const total = KINDS.reduce((a, k) => a + s.ms[k].length, 0);
    console.log(
      `load: ${TENANTS} tenants, ${elapsed.toFixed(1)} s, ${total} requests, ${(total / elapsed).toFixed(0)} req/s`,
    );
    for (const k of KINDS) {
      const sorted = [...s.ms[k]].sort((a, b) => a - b);
      console.log(
        `  ${k.padEnd(9)} n=${sorted.length} ${(sorted.length / elapsed).toFixed(0)}/s p50=${percentile(sorted, 50).toFixed(1)} ms p99=${percentile(sorted, 99).toFixed(1)} ms`,
      );
    }
    console.log(`  4xx: ${s.rejected}, errors (5xx or transport): ${s.errors.length}`);
    if (s.firstRejection) console.log(`    first 4xx: ${s.firstRejection}`);
    for (const e of s.errors.slice(0, 10)) console.log(`    ${e}`);
  } finally {
    client.close();
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  process.exit(s.errors.length > 0 ? 1 : 0);
};

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
