/**
 * Arbor's pi export, opened by pi's own code: `SessionManager` from @mariozechner/pi-coding-agent
 * (kept outside Arbor's install, in bench/peers; `npm run peers:install` installs it). For every
 * fixture, pi's tree of message entries must be Arbor's tree, the leaf pi resumes at must be the
 * tip with the branch to it Arbor's active branch, pi's labels must be Arbor's checkpoints, and
 * the context pi would send must have the roles of that branch. Every entry written after the
 * messages (labels, the session name) hangs off the tip: pi resumes at the file's last entry.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REAL_FIXTURES, WRITTEN_FIXTURES } from '@arbor/fixtures';
import { importSessionFile, sessionFiles } from '@arbor/importers';
import { exportPi } from './index';
import { commitImported } from './testing/roundtrip';

const ROOT = path.resolve(__dirname, '../../..');
const PEERS = path.join(ROOT, 'bench', 'peers');
const PI = path.join(PEERS, 'node_modules', '@mariozechner', 'pi-coding-agent');
const installed = fs.existsSync(path.join(PI, 'package.json'));
const HOW = 'npm run peers:install (npm --prefix bench/peers ci)';

interface PiView {
  file: string;
  version: number;
  name?: string;
  leafId: string | null;
  branch: string[];
  nodes: { id: string; parentId: string | null; type: string; role?: string; label?: string }[];
  contextRoles: string[];
}

/** pi's entry id → the Arbor message it was written for (`<id>_r<n>`, `<id>_u`: one message). */
const messageOf = (entryId: string): string => entryId.replace(/_(r\d+|u)$/, '');

/** pi's tree of message entries, folded back into Arbor messages: id → parent message id. */
const messageTree = (view: PiView): Map<string, string | null> => {
  const byId = new Map(view.nodes.map((n) => [n.id, n]));
  const out = new Map<string, string | null>();
  for (const n of view.nodes) {
    if (n.type !== 'message') continue;
    const id = messageOf(n.id);
    let p = n.parentId;
    while (p !== null) {
      const e = byId.get(p);
      if (e === undefined) break;
      if (e.type === 'message' && messageOf(e.id) !== id) break;
      p = e.parentId;
    }
    const parent = p === null ? null : messageOf(p);
    if (!out.has(id) || out.get(id) === undefined) out.set(id, parent);
  }
  return out;
};

const branchMessages = (view: PiView): string[] => {
  const byId = new Map(view.nodes.map((n) => [n.id, n]));
  const ids: string[] = [];
  for (const e of view.branch) {
    if (byId.get(e)?.type !== 'message') continue;
    const id = messageOf(e);
    if (ids[ids.length - 1] !== id) ids.push(id);
  }
  return ids;
};

if (!installed) {
  const reason = `SKIPPED: pi's SessionManager is not installed in bench/peers, so the pi export was NOT opened with pi's code. Install it: ${HOW}`;
  console.warn(reason);
  describe("pi export opened by pi's SessionManager", () => {
    if (process.env.ARBOR_REQUIRE_ALL === '1')
      it('requires the peer (ARBOR_REQUIRE_ALL=1)', () => {
        throw new Error(reason);
      });
    else it.skip(reason, () => undefined);
  });
} else {
  describe("pi export opened by pi's SessionManager", () => {
    const files = [...sessionFiles(REAL_FIXTURES), ...sessionFiles(WRITTEN_FIXTURES)];
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-pi-peer-'));
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
    let n = 0;
    const cases = files.flatMap((file) =>
      importSessionFile(file).conversations.map((c, i) => {
        const committed = commitImported(c, `conv-${path.basename(file, '.jsonl')}-${i}`);
        const out = exportPi(committed.source);
        const written = path.join(dir, `${++n}-${out.fileName}`);
        fs.writeFileSync(written, out.text);
        return { name: `${path.relative(ROOT, file)} #${i}`, committed, written };
      }),
    );
    // One process opens every export (pi's package loads once).
    const views = new Map<string, PiView>();
    beforeAll(() => {
      const stdout = execFileSync(
        process.execPath,
        [path.join(PEERS, 'pi-read.mjs'), ...cases.map((c) => c.written)],
        { cwd: PEERS, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' },
      );
      for (const l of stdout.split('\n').filter(Boolean)) {
        const v = JSON.parse(l) as PiView;
        views.set(v.file, v);
      }
    });

    it('opens every fixture', () => {
      expect(cases.length).toBeGreaterThanOrEqual(files.length);
      expect(views.size).toBe(cases.length);
    });

    it.each(cases.map((c) => [c.name, c]))('%s', (_, c) => {
      const view = views.get(c.written) as PiView;
      expect(view.version).toBe(3);
      const { tree } = c.committed;
      // The tree: every Arbor message, hung on the same parent.
      const piTree = messageTree(view);
      expect(
        [...piTree]
          .map(([id, parentId]) => ({ id, parentId }))
          .sort((a, b) => a.id.localeCompare(b.id)),
      ).toEqual(tree.messages.map((m) => ({ id: m.id, parentId: m.parentId })));
      // The branch pi resumes: Arbor's active branch, ending at the tip.
      expect(branchMessages(view)).toEqual(tree.activeBranch);
      // Every entry that is not a message (labels, the name) lies after the tip on that branch.
      const tipAt = view.branch.findIndex((e) => messageOf(e) === tree.activeBranch.at(-1));
      const trailers = view.nodes.filter((n) => n.type !== 'message').map((n) => n.id);
      expect(trailers.filter((id) => view.branch.indexOf(id) <= tipAt)).toEqual([]);
      // Its context: one message per pi message entry on that branch, roles in order.
      const roles = view.branch.flatMap((e) => {
        const n = view.nodes.find((x) => x.id === e);
        return n?.type === 'message' ? [n.role] : [];
      });
      expect(view.contextRoles).toEqual(roles);
      // Labels: the checkpoints.
      const labels = view.nodes
        .filter((n) => n.label !== undefined)
        .map((n) => ({ label: n.label as string, messageId: messageOf(n.id) }))
        .sort((a, b) => a.label.localeCompare(b.label));
      expect(labels).toEqual(tree.checkpoints);
      expect(view.name).toBe(c.committed.source.title ?? undefined);
    });

    it('resumes a session that ends on tool results (and a hook record) at those results', () => {
      const c = cases.find((x) => x.name.includes('ends-on-tool-results')) as (typeof cases)[0];
      const view = views.get(c.written) as PiView;
      const last = '0c6f2a8e-1b3d-4e5f-8a9b-0c1d2e3f4a07';
      expect(c.committed.source.tip).toBe(last);
      // pi splits it: the result as a toolResult entry, the text typed after it as a user entry.
      const tail = view.branch
        .map((e) => view.nodes.find((n) => n.id === e))
        .filter((n) => n?.type === 'message')
        .slice(-2)
        .map((n) => [n?.id, n?.role]);
      expect(tail).toEqual([
        [last, 'toolResult'],
        [`${last}_u`, 'user'],
      ]);
      expect(view.contextRoles.slice(-3)).toEqual(['assistant', 'toolResult', 'user']);
    });
  });
}
