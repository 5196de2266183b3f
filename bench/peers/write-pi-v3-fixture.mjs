// Writes test/fixtures/written/pi-v3/tree-session.jsonl with pi's own SessionManager
// (@mariozechner/pi-coding-agent, installed into bench/peers by `npm --prefix bench/peers install`):
// a v3 session tree with a real branch (branchWithSummary), labels, a compaction with
// firstKeptEntryId, model and thinking-level changes, custom entries, a session name, a tool
// call left without its result (an interrupted run) and an image. Run once; the file is
// committed (its ids and timestamps are pi's, so a rerun writes a different file).
//
//   node bench/peers/write-pi-v3-fixture.mjs <out-dir>
import fs from 'node:fs';
import path from 'node:path';
import { SessionManager } from '@mariozechner/pi-coding-agent';

const [, , outDir] = process.argv;
const usage = {
  input: 900,
  output: 60,
  cacheRead: 100,
  cacheWrite: 0,
  totalTokens: 1060,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};
const assistant = (content, stopReason = 'stop') => ({
  role: 'assistant',
  content,
  api: 'anthropic-messages',
  provider: 'anthropic',
  model: 'claude-sonnet-4-5',
  usage,
  stopReason,
  timestamp: Date.now(),
});
const user = (text) => ({ role: 'user', content: [{ type: 'text', text }], timestamp: Date.now() });
const result = (id, text, isError = false) => ({
  role: 'toolResult',
  toolCallId: id,
  toolName: 'bash',
  content: [{ type: 'text', text }],
  isError,
  timestamp: Date.now(),
});
// 1x1 PNG
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

const sm = SessionManager.create('/tmp/arbor-fixture', outDir);
sm.appendModelChange('anthropic', 'claude-sonnet-4-5');
sm.appendThinkingLevelChange('medium');
sm.appendMessage(user('List the files, then tell me what the project does.'));
sm.appendMessage(
  assistant(
    [
      { type: 'thinking', thinking: 'I should list the files first.', thinkingSignature: 'sig-1' },
      { type: 'toolCall', id: 'toolu_01', name: 'bash', arguments: { command: 'ls' } },
      { type: 'toolCall', id: 'toolu_02', name: 'bash', arguments: { command: 'cat README.md' } },
    ],
    'toolUse',
  ),
);
sm.appendMessage(result('toolu_01', 'README.md\nsrc\n'));
sm.appendMessage(result('toolu_02', '# demo\nA tiny demo.'));
const firstAnswer = sm.appendMessage(
  assistant([{ type: 'text', text: 'It is a tiny demo with a README and a src folder.' }]),
);
sm.appendLabelChange(firstAnswer, 'files-listed');
sm.appendMessage(user('Now add a test.'));
sm.appendMessage(assistant([{ type: 'text', text: 'Added test/demo.spec.ts.' }]));
sm.appendCustomEntry('my-extension', { state: 1 });
// The user goes back to the first answer and tries another way; pi summarises the left branch.
sm.branchWithSummary(firstAnswer, 'The user asked for a test; test/demo.spec.ts was added.');
sm.appendMessage({
  role: 'user',
  content: [
    { type: 'text', text: 'Instead, describe this screenshot.' },
    { type: 'image', data: PNG, mimeType: 'image/png' },
  ],
  timestamp: Date.now(),
});
sm.appendMessage(assistant([{ type: 'text', text: 'A single white pixel.' }]));
sm.appendCustomMessageEntry('reminder', 'Remember to run the tests.', true);
const runPrompt = sm.appendMessage(user('Run the tests.'));
sm.appendMessage(
  assistant(
    [{ type: 'toolCall', id: 'toolu_03', name: 'bash', arguments: { command: 'npm test' } }],
    'toolUse',
  ),
);
// interrupted: no tool result; the user types again
sm.appendMessage(user('Stop, never mind. Summarise instead.'));
const summaryAnswer = sm.appendMessage(
  assistant([{ type: 'text', text: 'We listed files and looked at a screenshot.' }]),
);
sm.appendCompaction('Listed files; looked at a screenshot.', runPrompt, 4200);
sm.appendMessage(user('Thanks.'));
const last = sm.appendMessage(assistant([{ type: 'text', text: 'You are welcome.' }]));
sm.appendLabelChange(summaryAnswer, 'summary');
sm.appendLabelChange(last, 'done');
sm.appendSessionInfo('Fixture: a pi v3 tree');
const file = sm.getSessionFile();
const target = path.join(outDir, 'tree-session.jsonl');
fs.renameSync(file, target);
console.log(target);
