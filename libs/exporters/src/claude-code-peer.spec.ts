/**
 * Arbor's Claude Code export, read by a third-party reader from npm: @claude-sessions/core
 * (kept outside Arbor's install, in bench/peers; `npm run peers:install` installs it), which
 * lists and reads sessions the way they lie in ~/.claude/projects. For every fixture it must
 * count every exported message, and its records must hold Arbor's tree (uuid → parentUuid)
 * with the tip last, where Claude Code resumes. (No JavaScript reader that rebuilds Claude
 * Code's tree itself was found on npm; the tree is compared from the records it returns.)
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REAL_FIXTURES, WRITTEN_FIXTURES } from '@arbor/fixtures';
import { importSessionFile, sessionFiles } from '@arbor/importers';
import { exportClaudeCode } from './index';
import { commitImported } from './testing/roundtrip';

const ROOT = path.resolve(__dirname, '../../..');
const PEERS = path.join(ROOT, 'bench', 'peers');
const READER = path.join(PEERS, 'node_modules', '@claude-sessions', 'core', 'package.json');
const installed = fs.existsSync(READER);

interface CcView {
  id: string;
  title: string;
  messageCount: number;
  records: { uuid: string; parentUuid: string | null; type: string }[];
}

if (!installed) {
  const reason =
    'SKIPPED: @claude-sessions/core is not installed in bench/peers, so the Claude Code export ' +
    'was NOT read by a third-party reader. Install it: npm run peers:install';
  console.warn(reason);
  describe('Claude Code export read by @claude-sessions/core', () => {
    it.skip(reason, () => undefined);
  });
} else {
  describe('Claude Code export read by @claude-sessions/core', () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-cc-peer-'));
    const project = '-arbor-export';
    const dir = path.join(home, '.claude', 'projects', project);
    fs.mkdirSync(dir, { recursive: true });
    afterAll(() => fs.rmSync(home, { recursive: true, force: true }));
    const files = [...sessionFiles(REAL_FIXTURES), ...sessionFiles(WRITTEN_FIXTURES)];
    let n = 0;
    const cases = files.flatMap((file) =>
      importSessionFile(file).conversations.map((c, i) => {
        const committed = commitImported(c, `arbor-${++n}`);
        const out = exportClaudeCode(committed.source);
        fs.writeFileSync(path.join(dir, out.fileName), out.text);
        return { name: `${path.relative(ROOT, file)} #${i}`, committed, session: `arbor-${n}` };
      }),
    );
    const views = new Map<string, CcView>();
    beforeAll(() => {
      const stdout = execFileSync(process.execPath, [path.join(PEERS, 'cc-read.mjs'), project], {
        cwd: PEERS,
        env: { ...process.env, HOME: home, USERPROFILE: home },
        maxBuffer: 256 * 1024 * 1024,
        encoding: 'utf8',
      });
      for (const l of stdout.split('\n').filter(Boolean)) {
        const v = JSON.parse(l) as CcView;
        views.set(v.id, v);
      }
    });

    it('lists every export as a session', () => {
      expect(views.size).toBe(cases.length);
    });

    it.each(cases.map((c) => [c.name, c]))('%s', (_, c) => {
      const view = views.get(c.session) as CcView;
      const { tree } = c.committed;
      expect(view.messageCount).toBe(tree.messages.length);
      expect(
        view.records
          .map((r) => ({ id: r.uuid, parentId: r.parentUuid }))
          .sort((a, b) => a.id.localeCompare(b.id)),
      ).toEqual(tree.messages.map((m) => ({ id: m.id, parentId: m.parentId })));
      expect(view.records.map((r) => r.type)).toEqual(
        view.records.map((r) => tree.messages.find((m) => m.id === r.uuid)?.role),
      );
      expect(view.records[view.records.length - 1]?.uuid).toBe(tree.activeBranch.at(-1));
    });
  });
}
