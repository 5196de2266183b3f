/**
 * The operator console in a real browser (Debian's Chromium through playwright-core) against the
 * real server in its own process, on a temp data dir holding imported real fixtures: the largest
 * Claude Code session and the pi sessions for tenant A, 55 small conversations for tenant B.
 * Every view, every action, the errors (stale tip, dropped checkpoint), tenant isolation, the
 * replay of a context with snapshot pages, and the admin's views. It prints how long the largest
 * fixture's tree takes to open; it asserts no time.
 *
 * Screenshots go to a temp dir, or to ARBOR_CONSOLE_SCREENSHOTS (docs/console for the README).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Page } from 'playwright-core';
import { REAL_CLAUDE_CODE, REAL_PI } from '@arbor/fixtures';
import { importSessionFile, sessionFiles } from '@arbor/importers';
import { createHttpClient } from '../apps/cli/src/client/http';
import { runImport } from '../apps/cli/src/import';
import { type Browser, describeWithBrowser, launchBrowser } from './support/browser';
import { ADMIN_KEY } from './support/harness';
import { type ServerProcess, spawnServer } from './support/server-process';
import { httpCall } from './support/http';

const ROOT = path.resolve(__dirname, '..');

type Json = Record<string, unknown>;
/** What the test reads of an <img> in the page (the test compiles without the DOM library). */
/** The page's globals the waits read, typed here (the test compiles without the DOM library). */
interface InPage {
  document: {
    querySelectorAll(selector: string): { length: number };
    querySelector(selector: string): { textContent: string | null } | null;
  };
}
interface Img {
  decode(): Promise<void>;
  naturalWidth: number;
}
interface TreeAnswer {
  tip: string | null;
  nodes: { id: string; parentId: string | null; children: string[] }[];
  branchPoints: string[];
  checkpoints: { label: string; status: string }[];
}

const largest = (dir: string): string =>
  fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => path.join(dir, f))
    .sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0];

const silentProgress = () => ({ update: () => undefined, finish: () => undefined });

/** The Claude Code session with the most messages (the largest file holds few, with images). */
const mostMessages = (dir: string): string =>
  sessionFiles(dir)
    .map((f) => ({
      f,
      n: importSessionFile(f).conversations.reduce(
        (a, c) => a + c.turns.reduce((b, t) => b + t.messages.length, 0),
        0,
      ),
    }))
    .sort((a, b) => b.n - a.n)[0].f;

/** The last message of each turn on a branch: where a checkpoint, a fork or a new branch can go. */
const boundaries = (branch: { id: string; turnId?: string }[]): string[] =>
  branch
    .filter((m, k) => k + 1 < branch.length && branch[k + 1].turnId !== m.turnId)
    .map((m) => m.id);

describeWithBrowser('operator console (Chromium)', () => {
  jest.setTimeout(180_000);
  let dataDir: string;
  let shots: string;
  let server: ServerProcess;
  let browser: Browser;
  let page: Page;
  let keyA: string;
  let keyB: string;
  let tenantA: string;
  let claude: string; // the largest Claude Code session file's conversation id
  let claudeLong: string; // the Claude Code session with the most messages
  let pi: string; // pi large-session
  let piOther: string;
  let bIds: string[];
  let snapshotContext: { contextId: string; revision: number; pages: number };

  const api = async (method: string, route: string, key: string, body?: unknown) => {
    const r = await server.call(method, route, key, body);
    if (r.status >= 300)
      throw new Error(`${method} ${route} → ${r.status} ${JSON.stringify(r.body)}`);
    return r.body as Json;
  };
  const tree = async (id: string) =>
    (await api('GET', `/v1/conversations/${id}/tree`, keyA)) as unknown as TreeAnswer;
  const shot = async (name: string) => page.screenshot({ path: path.join(shots, `${name}.png`) });
  /** A fresh load of the route (a hash change alone would keep what the page had loaded). */
  const open = async (route: string) => {
    await page.goto(`${server.url}/console/#/${route}`);
    await page.reload();
  };
  const signIn = async (key: string) => {
    await page.goto(`${server.url}/console/`);
    await page.evaluate('sessionStorage.clear()');
    await page.reload();
    await page.fill('[data-testid=key]', key);
    await page.click('[data-testid=sign-in]');
    await page.waitForSelector('[data-testid=who]');
  };
  /** Waits until `selector` matches exactly `n` elements (a string, run in the page). */
  const rowsAre = (selector: string, n: number) =>
    page.waitForFunction(
      ([sel, want]) =>
        (globalThis as unknown as InPage).document.querySelectorAll(sel).length === want,
      [selector, n] as const,
    );
  /** Waits until the first match of `selector` has exactly `text` (the page's CSP forbids eval). */
  const textIs = (selector: string, text: string) =>
    page.waitForFunction(
      ([sel, want]) =>
        (globalThis as unknown as InPage).document.querySelector(sel)?.textContent === want,
      [selector, text] as const,
    );
  const problemCode = async () => (await page.textContent('[data-testid=problem-code]'))?.trim();

  beforeAll(async () => {
    // The console is built as `npm run build` builds it, into a folder of this test's own (a
    // parallel `npm run build` empties dist/), which the server is told to serve.
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-console-'));
    const consoleDir = path.join(dataDir, 'console-build');
    execFileSync(process.execPath, [path.join(ROOT, 'apps/console/build.mjs')], {
      cwd: ROOT,
      env: { ...process.env, ARBOR_CONSOLE_DIR: consoleDir },
    });
    shots = process.env.ARBOR_CONSOLE_SCREENSHOTS
      ? path.resolve(ROOT, process.env.ARBOR_CONSOLE_SCREENSHOTS)
      : fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-console-shots-'));
    fs.mkdirSync(shots, { recursive: true });
    server = await spawnServer(dataDir, {
      ARBOR_SQLITE_SYNCHRONOUS: 'NORMAL',
      ARBOR_CONSOLE_DIR: consoleDir,
    });
    const a = await api('POST', '/v1/tenants', ADMIN_KEY, { name: 'tenant-a' });
    const b = await api('POST', '/v1/tenants', ADMIN_KEY, { name: 'tenant-b' });
    tenantA = a.id as string;
    keyA = a.apiKey as string;
    keyB = b.apiKey as string;
    const client = createHttpClient({ url: server.url, key: keyA });
    const cc = await runImport(largest(REAL_CLAUDE_CODE), {
      client,
      concurrency: 1,
      progress: silentProgress,
    });
    claude = cc.conversations.find((c) => c.kind === 'main')!.id;
    const ccLong = await runImport(mostMessages(REAL_CLAUDE_CODE), {
      client,
      concurrency: 1,
      progress: silentProgress,
    });
    claudeLong = ccLong.conversations.find((c) => c.kind === 'main')!.id;
    const pis = await runImport(REAL_PI, { client, concurrency: 2, progress: silentProgress });
    expect(pis.failures).toEqual([]);
    const piRefs = pis.conversations.map((c) => c.id);
    const titled = await Promise.all(
      piRefs.map(async (id) => ({
        id,
        title: (await api('GET', `/v1/conversations/${id}`, keyA)).title,
      })),
    );
    pi = titled.find((t) => t.title === 'large-session')!.id;
    piOther = titled.find((t) => t.id !== pi)!.id;
    // Two dozen branches (edited prompts) off the large pi session's turn boundaries, tip kept.
    const piTip = (await api('GET', `/v1/conversations/${pi}`, keyA)).tip;
    const piBranch = (await api('GET', `/v1/conversations/${pi}/messages?limit=1000`, keyA))
      .items as { id: string; turnId?: string }[];
    const ends = boundaries(piBranch);
    for (let i = 0; i < 24; i++) {
      const at = ends[Math.floor(((i + 0.5) * (ends.length - 1)) / 24)];
      await api('POST', `/v1/conversations/${pi}/turns`, keyA, {
        parentId: at,
        messages: [
          {
            role: 'user',
            content: [{ type: 'text', text: `edited prompt ${i}: try another way` }],
          },
          { role: 'assistant', content: [{ type: 'text', text: `another way ${i}` }] },
        ],
      });
    }
    await api('PUT', `/v1/conversations/${pi}/tip`, keyA, { messageId: piTip });
    // A context with snapshot pages, handed out before the browser looks at it.
    const ctx = await api('POST', `/v1/conversations/${pi}/context`, keyA, {
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      budgetTokens: 30_000,
      mode: 'snapshot',
    });
    const receipt = ctx.receipt as {
      rungs: { rung: string; applied: boolean; details?: { pages?: number } }[];
    };
    snapshotContext = {
      contextId: ctx.contextId as string,
      revision: ctx.revision as number,
      pages: receipt.rungs
        .filter((r) => r.rung === 'snapshot' && r.applied)
        .reduce((n, r) => n + (r.details?.pages ?? 0), 0),
    };
    expect(snapshotContext.pages).toBeGreaterThan(0);
    await api('POST', `/v1/conversations/${piOther}/failures`, keyA, {
      input: { prompt: 'run the tests again' },
      error: { type: 'overloaded_error', message: 'provider overloaded' },
    });
    bIds = [];
    for (let i = 0; i < 55; i++)
      bIds.push((await api('POST', '/v1/conversations', keyB, { title: `b-${i}` })).id as string);
    browser = await launchBrowser();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await server?.kill();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves the console at /console/ with a strict CSP, and refuses a bad key plainly', async () => {
    const res = await httpCall(server.url, 'GET', '/console/', { check: false });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    await page.goto(`${server.url}/console/`);
    await page.fill('[data-testid=key]', 'arb_nope_nope');
    await page.click('[data-testid=sign-in]');
    await page.waitForSelector('[data-testid=problem]');
    expect(await problemCode()).toBe('unauthorized');
    await shot('signin');
  });

  it("lists tenant A's conversations (never B's), filters and sorts them", async () => {
    await signIn(keyA);
    await page.waitForSelector('[data-testid=conversation-row]');
    const ids = await page.$$eval('[data-testid=conversation-row]', (rows) =>
      rows.map((r) => r.getAttribute('data-id')),
    );
    const listed = (await api('GET', '/v1/conversations?limit=50', keyA)).items as {
      id: string;
      counts: { messages: number };
    }[];
    expect(ids.sort()).toEqual(listed.map((c) => c.id).sort());
    for (const b of bIds) expect(ids).not.toContain(b);
    // Sort and filter are the server's (`?sort&order&q`): the rows are its answer, in its order.
    const idsOf = async (query: string) =>
      (
        (await api('GET', `/v1/conversations?limit=50&${query}`, keyA)).items as { id: string }[]
      ).map((c) => c.id);
    const rowIds = () =>
      page.$$eval('[data-testid=conversation-row]', (rows) =>
        rows.map((r) => r.getAttribute('data-id')),
      );
    const rowsEqual = async (want: string[]) => {
      await page.waitForFunction(
        (w) =>
          [
            ...(
              globalThis as unknown as {
                document: {
                  querySelectorAll(s: string): Iterable<{ getAttribute(a: string): string }>;
                };
              }
            ).document.querySelectorAll('[data-testid=conversation-row]'),
          ]
            .map((r) => r.getAttribute('data-id'))
            .join(',') === w,
        want.join(','),
      );
      expect(await rowIds()).toEqual(want);
    };
    await page.selectOption('[data-testid=sort]', 'title');
    await rowsEqual(await idsOf('sort=title'));
    await page.selectOption('[data-testid=order]', 'desc');
    await rowsEqual(await idsOf('sort=title&order=desc'));
    await page.selectOption('[data-testid=sort]', 'lastActivity');
    await rowsEqual(await idsOf('sort=lastActivity&order=desc'));
    await shot('conversations');
    await page.selectOption('[data-testid=order]', 'asc');
    const listCalls: string[] = [];
    const onRequest = (r: { url(): string }) => {
      if (new URL(r.url()).pathname === '/v1/conversations') listCalls.push(r.url());
    };
    page.on('request', onRequest);
    await page.fill('[data-testid=filter]', 'large-');
    await rowsEqual([pi]);
    page.off('request', onRequest);
    expect(listCalls.some((u) => new URL(u).searchParams.get('q') === 'large-')).toBe(true);
    expect(await idsOf('q=large-')).toEqual([pi]);
    await shot('conversations-filtered');
    // B's conversation by its id, from A's tab: the same answer as an id that does not exist.
    await open(`c/${bIds[0]}/tree`);
    await page.waitForSelector('[data-testid=problem]');
    expect(await problemCode()).toBe('conversation_not_found');
    // The key is in this tab's sessionStorage, not in localStorage or a cookie.
    expect(await page.evaluate('[localStorage.length, document.cookie]')).toEqual([0, '']);
    expect(await page.evaluate("sessionStorage.getItem('arbor.console.key')")).toBe(keyA);
  });

  it('pages through a tenant with more conversations than a page (tenant B)', async () => {
    await signIn(keyB);
    await page.waitForSelector('[data-testid=conversation-row]');
    expect(await page.$$eval('[data-testid=conversation-row]', (r) => r.length)).toBe(50);
    await page.click('[data-testid=next-page]');
    await rowsAre('[data-testid=conversation-row]', 5);
    const second = await page.$$eval('[data-testid=conversation-row]', (rows) =>
      rows.map((r) => r.getAttribute('data-id')),
    );
    expect(second).toEqual(bIds.slice(50));
  });

  it('draws the large sessions as trees, folded, with keyboard navigation and the stored message', async () => {
    await signIn(keyA);
    const lines: string[] = [];
    for (const [what, id] of [
      ['the largest Claude Code fixture file', claude],
      ['the Claude Code fixture with the most messages', claudeLong],
      ['the pi large-session with 24 added branches', pi],
    ]) {
      const t = await tree(id);
      await page.goto(`${server.url}/console/#/conversations`);
      const started = Date.now();
      await page.goto(`${server.url}/console/#/c/${id}/tree`);
      await page.waitForSelector('[data-testid=tip-badge]');
      const ms = Date.now() - started;
      const loadMs = Number(await page.evaluate('window.__arborTreeMs'));
      lines.push(
        `  ${what}: ${t.nodes.length} messages, ${t.branchPoints.length} branch points — ` +
          `drawn ${ms} ms after navigation (of which the 3 API calls ${Math.round(loadMs)} ms)`,
      );
    }
    console.log(
      `console tree view open time in headless Chromium (not asserted):\n${lines.join('\n')}`,
    );
    await open(`c/${pi}/tree`);
    await page.waitForSelector('[data-testid=tip-badge]');
    const t = await tree(pi);
    expect(t.branchPoints.length).toBeGreaterThanOrEqual(20);
    // The compactions in force arrive after the tree (the replay at the current revision) and
    // redraw it: wait until that drawing holds every message (a view that never does fails here).
    await page
      .waitForFunction(
        `document.querySelectorAll('[data-testid=node]').length +
          [...document.querySelectorAll('[data-testid=fold]')].reduce(
            (a, x) => a + Number(/(\\d+) messages folded/.exec(x.textContent ?? '')?.[1] ?? 0),
            0,
          ) === ${t.nodes.length}`,
        undefined,
        { timeout: 15_000 },
      )
      .catch(() => undefined);
    const rows = await page.$$eval('[data-testid=node]', (r) =>
      r.map((x) => x.getAttribute('data-id')),
    );
    const folds = await page.$$eval('[data-testid=fold]', (r) =>
      r.map((x) => Number(/(\d+) messages folded/.exec(x.textContent ?? '')?.[1])),
    );
    // Every message is drawn once, as a node or inside a fold.
    expect(rows.length + folds.reduce((a, b) => a + b, 0)).toBe(t.nodes.length);
    expect(new Set(rows).size).toBe(rows.length);
    expect(folds.length).toBeGreaterThan(0);
    expect(await page.$$eval('.badge.bp', (r) => r.length)).toBe(t.branchPoints.length);
    // The tip is selected; its path to the root is the active branch.
    const branch = (await api('GET', `/v1/conversations/${pi}/messages?limit=1000`, keyA))
      .items as { id: string }[];
    await page.waitForSelector('[data-testid=message-view]');
    expect(await page.textContent('[data-testid=path-length]')).toBe(String(branch.length));
    await page.click('[data-testid=path-all]');
    expect(await page.$$eval('[data-testid=path] li', (l) => l.length)).toBe(branch.length);
    // Keyboard: k moves up one row, h to the parent, t back to the tip.
    await page.focus('[data-testid=tree]');
    const byId = new Map(t.nodes.map((n) => [n.id, n]));
    await page.keyboard.press('k');
    const up = await page.getAttribute('.row.selected', 'data-id');
    expect(up).toBe(rows[rows.indexOf(t.tip) - 1]);
    await page.keyboard.press('h');
    expect(await page.getAttribute('.row.selected', 'data-id')).toBe(byId.get(up!)!.parentId);
    await page.keyboard.press('t');
    expect(await page.getAttribute('.row.selected', 'data-id')).toBe(t.tip);
    // A fold opens on click and shows its messages.
    const before = rows.length;
    await page.click('[data-testid=fold]');
    await page.waitForFunction(
      (n) =>
        (globalThis as unknown as InPage).document.querySelectorAll('[data-testid=node]').length >
        n,
      before,
    );
    await shot('tree');
  });

  it('shows a tool call beside its result, and thinking collapsed', async () => {
    // The first assistant message with a tool_use on the active branch.
    const branch = (await api('GET', `/v1/conversations/${claudeLong}/messages?limit=1000`, keyA))
      .items as {
      id: string;
      role: string;
      content: { type: string }[];
    }[];
    const withTool = branch.find(
      (m) => m.role === 'assistant' && m.content.some((b) => b.type === 'tool_use'),
    )!;
    await open(`c/${claudeLong}/tree/${withTool.id}`);
    await page.waitForSelector('[data-testid=tool-pair]');
    const pair = await page.textContent('[data-testid=tool-pair]');
    expect(pair).toContain('result of');
    const thinking = branch.find((m) => m.content.some((b) => b.type === 'thinking'));
    if (thinking) {
      await open(`c/${claudeLong}/tree/${thinking.id}`);
      await page.waitForSelector('details.thinking');
      expect(
        await page.$eval('details.thinking', (d) => (d as unknown as { open: boolean }).open),
      ).toBe(false);
    }
    await shot('message');
    // The largest file's messages carry images: drawn from their stored bytes.
    const big = (await api('GET', `/v1/conversations/${claude}/messages?limit=1000`, keyA))
      .items as { id: string; content: { type: string; content?: unknown }[] }[];
    const withImage = big.find((m) => JSON.stringify(m.content).includes('"type":"image"'));
    if (withImage) {
      await open(`c/${claude}/tree/${withImage.id}`);
      await page.waitForSelector('[data-testid=message-view] img.inline-image');
      expect(
        await page.$eval('[data-testid=message-view] img.inline-image', (i) =>
          (i as unknown as Img).decode().then(() => (i as unknown as Img).naturalWidth),
        ),
      ).toBeGreaterThan(0);
    }
  });

  it('moves the tip, sets a checkpoint, rewinds, and shows a stale tip as a 409', async () => {
    await open(`c/${pi}/tree`);
    await page.waitForSelector('[data-testid=tip-badge]');
    await page.uncheck('[data-testid=live]');
    const t0 = await tree(pi);
    // A checkpoint at the tip (a turn boundary).
    await page.fill('[data-testid=checkpoint-label]', 'before-detour');
    await page.click('[data-testid=set-checkpoint]');
    await page.waitForSelector('[data-testid=done]');
    await page.waitForSelector('[data-testid=checkpoint-badge]');
    expect((await tree(pi)).checkpoints.map((c) => [c.label, c.status])).toEqual([
      ['before-detour', 'active'],
    ]);
    // Move the tip two rows up.
    await page.focus('[data-testid=tree]');
    await page.keyboard.press('k');
    await page.keyboard.press('k');
    const target = await page.getAttribute('.row.selected', 'data-id');
    await page.click('[data-testid=move-tip]');
    await page.waitForSelector('[data-testid=done]');
    await page.waitForSelector(`[data-testid=node][data-id="${target}"] [data-testid=tip-badge]`);
    expect((await tree(pi)).tip).toBe(target);
    // Someone else moves the tip; the console still believes the old one: 409 stale_tip.
    await api('PUT', `/v1/conversations/${pi}/tip`, keyA, { messageId: t0.tip });
    await page.focus('[data-testid=tree]');
    await page.keyboard.press('k');
    await page.click('[data-testid=move-tip]');
    await page.waitForSelector('[data-testid=problem]');
    expect(await problemCode()).toBe('stale_tip');
    await shot('stale-tip');
    // Fresh state, then rewind to the label.
    await page.reload();
    await page.waitForSelector('[data-testid=tip-badge]');
    await page.uncheck('[data-testid=live]');
    await api('PUT', `/v1/conversations/${pi}/tip`, keyA, { messageId: target });
    await page.reload();
    await page.waitForSelector('[data-testid=rewind-before-detour]');
    await page.uncheck('[data-testid=live]');
    await page.click('[data-testid=rewind-before-detour]');
    await page.waitForSelector('[data-testid=done]');
    expect((await tree(pi)).tip).toBe(t0.tip);
  });

  it('resumes (trims the window), shows the dropped checkpoint and its 409 on rewind', async () => {
    const branch = (await api('GET', `/v1/conversations/${pi}/messages?limit=1000`, keyA))
      .items as { id: string; turnId?: string }[];
    // The last message of an early turn: a boundary the trim will cut away.
    await api('POST', `/v1/conversations/${pi}/checkpoints`, keyA, {
      label: 'early',
      messageId: boundaries(branch)[2],
    });
    await open(`c/${pi}/tree`);
    await page.waitForSelector('[data-testid=rewind-early]');
    await page.uncheck('[data-testid=live]');
    await page.fill('[data-testid=keep-messages]', '20');
    await page.click('[data-testid=resume]');
    await page.waitForSelector('[data-testid=done]');
    await page.waitForSelector('.badge.cp-dropped');
    const cps = (await tree(pi)).checkpoints;
    expect(cps.find((c) => c.label === 'early')?.status).toBe('dropped');
    await page.click('[data-testid=rewind-early]');
    await page.waitForSelector('[data-testid=problem]');
    expect(await problemCode()).toBe('checkpoint_dropped');
    await shot('dropped-checkpoint');
  });

  it('forks from a node, links both ways, and exports jsonl, markdown and html', async () => {
    await open(`c/${piOther}/tree`);
    await page.waitForSelector('[data-testid=tip-badge]');
    await page.uncheck('[data-testid=live]');
    await page.waitForSelector('[data-testid=failed-turn]');
    expect(await page.textContent('[data-testid=failed-turn]')).toContain('provider overloaded');
    const t = await tree(piOther);
    for (const [name, ext] of [
      ['jsonl', '.jsonl'],
      ['markdown', '.md'],
      ['html', '.html'],
    ]) {
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.click(`[data-testid=export-${name}]`),
      ]);
      expect(download.suggestedFilename()).toBe(`${piOther}${ext}`);
      const body = fs.readFileSync((await download.path())!, 'utf8');
      if (name === 'jsonl') expect(body.split('\n').filter(Boolean)).toHaveLength(t.nodes.length);
      if (name === 'markdown') expect(body).toContain('`' + t.tip + '`');
      if (name === 'html') expect(body).toMatch(/^<!doctype html>/i);
    }
    // Not at a turn boundary: the API's 422, shown as it is.
    const otherBranch = (await api('GET', `/v1/conversations/${piOther}/messages?limit=1000`, keyA))
      .items as { id: string; turnId?: string }[];
    const ends = boundaries(otherBranch);
    const inside = otherBranch.find((m) => !ends.includes(m.id) && m.id !== t.tip)!;
    await open(`c/${piOther}/tree/${inside.id}`);
    await page.waitForSelector('[data-testid=message-view]');
    await page.click('[data-testid=fork]');
    await page.waitForSelector('[data-testid=problem]');
    expect(await problemCode()).toBe('not_a_turn_boundary');
    const at = ends[Math.floor(ends.length / 2)];
    await open(`c/${piOther}/tree/${at}`);
    await page.waitForSelector(`.row.selected[data-id="${at}"]`);
    await page.click('[data-testid=fork]');
    await page.waitForSelector('[data-testid=forked-from]');
    const forkId = decodeURIComponent(/#\/c\/([^/]+)\//.exec(page.url())![1]);
    expect(forkId).not.toBe(piOther);
    const fork = await api('GET', `/v1/conversations/${forkId}`, keyA);
    expect(fork.lineage).toMatchObject({ forkedFrom: { conversationId: piOther, messageId: at } });
    await shot('fork');
    await page.click('[data-testid=forked-from]');
    await page.waitForSelector('[data-testid=fork-link]');
    expect(await page.getAttribute('[data-testid=fork-link]', 'href')).toContain(
      encodeURIComponent(forkId),
    );
  });

  it('reads the audit log, paged, with ids, and the hash-chain verdict', async () => {
    await open(`c/${pi}/audit`);
    await page.waitForSelector('[data-testid=event-row]');
    await page.waitForSelector('.verdict.ok');
    expect(await page.textContent('[data-testid=verdict]')).toContain('hash chain verifies');
    const first = (await api('GET', `/v1/conversations/${pi}/events?limit=50`, keyA)).items as {
      type: string;
      metadata: { correlationId: string };
    }[];
    expect(
      await page.$$eval('[data-testid=event-row]', (r) =>
        r.map((x) => x.getAttribute('data-type')),
      ),
    ).toEqual(first.map((e) => e.type));
    expect(await page.textContent('[data-testid=event-row]')).toContain(
      first[0].metadata.correlationId,
    );
    expect(await page.textContent('table.grid')).not.toContain('undefined');
    await shot('audit');
    await page.click('[data-testid=events-next]');
    await textIs('[data-testid=event-row] td', '50');
    // The verify route is the tenant's own: B's key gets 404 for A's conversation.
    expect((await server.call('GET', `/v1/conversations/${pi}/verify`, keyB)).status).toBe(404);
  });

  it('replays to a revision and shows what the model saw: body, hash match, rungs, window bar, snapshot pages', async () => {
    await open(`c/${pi}/replay/${snapshotContext.revision}`);
    await page.waitForSelector('[data-testid=replay-state]');
    expect(await page.textContent('[data-testid=replay-revision]')).toBe(
      String(snapshotContext.revision),
    );
    await page.waitForSelector('[data-testid=open-context]');
    await page.click('[data-testid=open-context]');
    await page.waitForSelector('[data-testid=hash-verdict]');
    const verdict = await page.textContent('[data-testid=hash-verdict]');
    expect(verdict).toContain('hash matches');
    // What reproduced byte for byte shows no difference under it (the decision ids included).
    expect(verdict).not.toContain('≠');
    expect(await page.textContent('[data-testid=replay-state]')).not.toContain('undefined');
    await page.waitForSelector('[data-testid=snapshot-pages] img');
    const pages = await page.$$eval('[data-testid=snapshot-pages] img', (imgs) =>
      Promise.all(
        imgs.map((i) =>
          (i as unknown as Img).decode().then(() => (i as unknown as Img).naturalWidth),
        ),
      ),
    );
    expect(pages).toHaveLength(snapshotContext.pages);
    for (const w of pages) expect(w).toBeGreaterThan(0);
    expect(await page.$$eval('[data-testid=rungs] tr', (r) => r.length)).toBeGreaterThan(0);
    expect(await page.textContent('[data-testid=rungs]')).toContain('snapshot');
    expect(
      await page.$$eval('[data-testid=window-bar] .seg', (s) => s.map((x) => x.className)),
    ).toContain('seg seg-snapshots');
    expect(await page.textContent('[data-testid=context-body]')).toContain('user');
    // The ladder: every rung tried, in order, with its reason, as `GET …/contexts` recorded it.
    const listed = (await api('GET', `/v1/conversations/${pi}/contexts?limit=100`, keyA)).items as {
      contextId: string;
      rungs: { rung: string; reason: string; applied: boolean }[] | null;
    }[];
    const rungs = listed.find((x) => x.contextId === snapshotContext.contextId)!.rungs!;
    expect(rungs.length).toBeGreaterThan(0);
    const ladder = await page.$$eval('[data-testid=rung-reasons] tr', (rows) =>
      rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent ?? '')),
    );
    expect(ladder.map((cells) => cells[0].split(' ')[0])).toEqual(rungs.map((g) => g.rung));
    expect(ladder.map((cells) => cells[3])).toEqual(rungs.map((g) => g.reason));
    expect(ladder.map((cells) => cells[0].includes('applied'))).toEqual(
      rungs.map((g) => g.applied),
    );
    await shot('replay');
    // Back to the start: revision 0 is the empty conversation.
    await page.fill('[data-testid=revision-input]', '0');
    await page.press('[data-testid=revision-input]', 'Enter');
    await textIs('[data-testid=replay-revision]', '0');
    expect(await page.textContent('[data-testid=replay-tip]')).toBe('—');
  });

  it('compares two branches from their common ancestor, side by side', async () => {
    const t = await tree(pi);
    const leaves = t.nodes.filter((n) => n.children.length === 0).map((n) => n.id);
    const other = leaves.find((l) => l !== t.tip)!;
    expect(other).toBeDefined();
    await open(`c/${pi}/compare/${t.tip}/${other}`);
    await page.waitForSelector('[data-testid=ancestor]');
    const byId = new Map(t.nodes.map((n) => [n.id, n]));
    const up = (id: string | null) => {
      const p: string[] = [];
      for (let at = id; at; at = byId.get(at)?.parentId ?? null) p.unshift(at);
      return p;
    };
    const a = up(t.tip);
    const b = up(other);
    let k = 0;
    while (a[k] === b[k]) k++;
    expect(await page.textContent('[data-testid=ancestor]')).toContain(a[k - 1]);
    expect(
      await page.$$eval('[data-testid=compare-left] [data-testid=compare-node]', (r) => r.length),
    ).toBe(a.length - k);
    expect(
      await page.$$eval('[data-testid=compare-right] [data-testid=compare-node]', (r) => r.length),
    ).toBe(b.length - k);
    await shot('compare');
    // Either picker moves its own side only: B set to A's leaf leaves nothing after the ancestor.
    expect(await page.$$eval('[data-testid=compare-a] option', (o) => o.length)).toBe(
      await page.$$eval('[data-testid=compare-b] option', (o) => o.length),
    );
    await page.selectOption('[data-testid=compare-b]', t.tip!);
    await page.waitForFunction(
      "document.querySelectorAll('[data-testid=compare-right] [data-testid=compare-node]').length === 0",
    );
    expect(await page.inputValue('[data-testid=compare-a]')).toBe(t.tip);
    expect(await page.textContent('[data-testid=ancestor]')).toContain(t.tip!);
  });

  it('updates live as a turn is committed (the SSE stream, the key in a header)', async () => {
    const streams: { url: string; authorization: string | undefined }[] = [];
    const onRequest = (r: { url(): string; headers(): Record<string, string> }) => {
      if (r.url().includes('/stream'))
        streams.push({ url: r.url(), authorization: r.headers().authorization });
    };
    page.on('request', onRequest);
    await open(`c/${piOther}/tree`);
    await page.waitForSelector('[data-testid=tip-badge]');
    await textIs('[data-testid=live-state]', 'open');
    const before = Number(await page.textContent('[data-testid=revision]'));
    const c = await api('GET', `/v1/conversations/${piOther}`, keyA);
    const r = await api('POST', `/v1/conversations/${piOther}/turns`, keyA, {
      parentId: c.tip,
      expectedTip: c.tip,
      messages: [
        {
          role: 'user',
          content: [{ type: 'text', text: 'a turn committed while the console watches' }],
        },
        { role: 'assistant', content: [{ type: 'text', text: 'seen live' }] },
      ],
    });
    const newTip = (r.messageIds as string[])[1];
    await page.waitForSelector(`[data-testid=node][data-id="${newTip}"] [data-testid=tip-badge]`, {
      timeout: 15_000,
    });
    expect(Number(await page.textContent('[data-testid=revision]'))).toBeGreaterThan(before);
    page.off('request', onRequest);
    expect(streams.length).toBeGreaterThan(0);
    for (const st of streams) {
      expect(new URL(st.url).pathname).toBe(`/v1/conversations/${piOther}/stream`);
      expect(st.url).not.toContain(keyA);
      expect(st.authorization).toBe(`Bearer ${keyA}`);
    }
  });

  it("admin: tenants, keys, projector, and a tenant's data through the admin's own read-only routes", async () => {
    await signIn(ADMIN_KEY);
    await page.waitForSelector('[data-testid=tenant-row]');
    const rows = await page.$$eval('[data-testid=tenant-row]', (r) =>
      r.map((x) => x.getAttribute('data-id')),
    );
    expect(rows).toContain(tenantA);
    expect(await page.textContent('[data-testid=projector]')).toContain('position');
    await page.click(`[data-testid=tenant-row][data-id="${tenantA}"] [data-testid=keys]`);
    await page.waitForSelector('[data-testid=key-row]');
    await page.click('[data-testid=issue-key]');
    await rowsAre('[data-testid=key-row]', 2);
    await shot('admin');
    const keysBefore = (await api('GET', `/v1/tenants/${tenantA}/keys`, ADMIN_KEY)).items as {
      keyId: string;
    }[];
    // Every call the page makes from here on, to check it reads through the admin's routes.
    const calls: string[] = [];
    const record = (r: { url(): string; method(): string }) => {
      const u = new URL(r.url());
      if (u.pathname.startsWith('/v1/')) calls.push(`${r.method()} ${u.pathname}`);
    };
    page.on('request', record);
    await page.click(`[data-testid=tenant-row][data-id="${tenantA}"] [data-testid=open-tenant]`);
    await page.waitForSelector('[data-testid=conversation-row]');
    expect(await page.textContent('[data-testid=who]')).toContain(tenantA);
    await open(`c/${pi}/tree`);
    await page.waitForSelector('[data-testid=tip-badge]');
    await page.waitForSelector('[data-testid=read-only]');
    expect(await page.$$('[data-testid=move-tip]')).toHaveLength(0);
    await shot('admin-tenant-tree');
    page.off('request', record);
    const prefix = `/v1/admin/tenants/${tenantA}/conversations`;
    expect(calls.filter((c) => c.includes('/conversations')).length).toBeGreaterThan(3);
    expect(calls.filter((c) => c.includes('/conversations') && !c.includes(prefix))).toEqual([]);
    expect(calls).toContain(`GET ${prefix}/${pi}/tree`);
    // No key was issued for the look: the admin's own routes need none.
    const keysAfter = (await api('GET', `/v1/tenants/${tenantA}/keys`, ADMIN_KEY)).items as {
      keyId: string;
    }[];
    expect(keysAfter.map((k) => k.keyId)).toEqual(keysBefore.map((k) => k.keyId));
    // A tenant key is refused on those routes.
    expect((await server.call('GET', `${prefix}/${pi}/tree`, keyA)).status).toBe(401);
    await page.click('[data-testid=sign-out]');
    await page.waitForSelector('[data-testid=tenant-row]');
  });
});
