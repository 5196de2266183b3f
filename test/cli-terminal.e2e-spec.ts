/**
 * The CLI as a child process prints no control character an imported text held: `arbor import`
 * (the summary, with the title) and `arbor tree` (the previews) on a Claude Code file whose prompts,
 * answers and title are generated hostile text (ESC/OSC sequences, C0, C1, bidi controls).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { hasControl } from '../apps/cli/src/terminal';
import { arbHostileText } from '../apps/cli/src/terminal.testing';

const ROOT = path.resolve(__dirname, '..');
const cli = (args: string[], dataDir: string): { stdout: string; stderr: string } => {
  const r = execFileSync(
    process.execPath,
    ['-r', '@swc-node/register', path.join(ROOT, 'apps/cli/src/main.ts'), ...args],
    { cwd: ROOT, env: { ...process.env, ARBOR_DATA_DIR: dataDir }, encoding: 'utf8' },
  );
  return { stdout: r, stderr: '' };
};

describe('CLI output escapes control characters', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-cli-terminal-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('import and tree print none of what the file held', () => {
    const texts = fc.sample(arbHostileText(), { numRuns: 6, seed: 28 });
    texts.push('\x1b[2J\x1b[Hcleared\x1b]0;window title\x07\u202eevil');
    const lines: string[] = [];
    let parent: string | null = null;
    texts.forEach((t, i) => {
      const uuid = `00000000-0000-4000-8000-${String(i * 2).padStart(12, '0')}`;
      const answer = `00000000-0000-4000-8000-${String(i * 2 + 1).padStart(12, '0')}`;
      const base = {
        isSidechain: false,
        userType: 'external',
        cwd: '/',
        sessionId: 's',
        version: '2.1.0',
      };
      lines.push(
        JSON.stringify({
          ...base,
          parentUuid: parent,
          type: 'user',
          uuid,
          timestamp: new Date(i * 2000).toISOString(),
          message: { role: 'user', content: `q ${t}` },
        }),
        JSON.stringify({
          ...base,
          parentUuid: uuid,
          type: 'assistant',
          uuid: answer,
          timestamp: new Date(i * 2000 + 1000).toISOString(),
          message: {
            id: `msg_${i}`,
            type: 'message',
            role: 'assistant',
            model: 'claude-sonnet-4-5',
            content: [{ type: 'text', text: `a ${t}` }],
            stop_reason: 'end_turn',
            stop_sequence: null,
          },
        }),
      );
      parent = answer;
    });
    lines.push(
      JSON.stringify({
        type: 'summary',
        summary: `title \x1b]0;owned\x07 ${texts[0]}`,
        leafUuid: parent,
      }),
    );
    const file = path.join(dir, 'hostile.jsonl');
    fs.writeFileSync(file, lines.join('\n') + '\n');
    const data = path.join(dir, 'data');
    const imported = cli(['import', file], data).stdout;
    expect(hasControl(imported)).toBe(false);
    expect(imported).toContain('\\u{1b}]0;owned');
    const id = /^\s+(imp-\S+)/m.exec(imported)?.[1] as string;
    const tree = cli(['tree', id, '--expand'], data).stdout;
    expect(hasControl(tree)).toBe(false);
    expect(tree).toContain('\\u{1b}[2J');
    // An export piped to a file keeps its bytes: the JSON escapes them itself.
    const exported = cli(['export', id, '--format', 'jsonl'], data).stdout;
    expect(exported).toContain('\\u001b[2J');
  }, 120_000);
});
