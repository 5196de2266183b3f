/**
 * A data directory written by an earlier build (test/fixtures/data-v1: its read models keep a
 * copy of every message body) opens with this one: the read models are projected again from the
 * log, with the bodies left in the log, and every read answers what it answered then.
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clientFor } from './support/api';
import { type Harness, startHarness } from './support/harness';

const FIXTURE = path.join(__dirname, 'fixtures', 'data-v1');
const expected = JSON.parse(fs.readFileSync(path.join(FIXTURE, 'expected.json'), 'utf8')) as {
  apiKey: string;
  conversationId: string;
  tip: string;
  branch: { id: string }[];
};

const bodyColumns = (file: string): number => {
  const db = new Database(file, { readonly: true });
  try {
    return (
      db
        .prepare("SELECT count(*) AS n FROM pragma_table_info('rm_messages') WHERE name = 'body'")
        .get() as {
        n: number;
      }
    ).n;
  } finally {
    db.close();
  }
};

describe('read models written by format v1', () => {
  let dir: string;
  let h: Harness;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-v1-'));
    fs.cpSync(path.join(FIXTURE, 'files'), dir, { recursive: true });
    // The fixture is what it claims: its rm_messages holds the bodies.
    expect(bodyColumns(path.join(dir, 'readmodels.sqlite'))).toBe(1);
    h = await startHarness({ ARBOR_DATA_DIR: dir });
  });

  afterAll(async () => {
    await h?.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('are projected again without the bodies, and answer as they did', async () => {
    const c = clientFor(h, expected.apiKey);
    expect(await c.branch(expected.conversationId)).toEqual(expected.branch);
    for (const m of expected.branch) {
      const r = await c.get(c.conv(expected.conversationId, `/messages/${m.id}`));
      expect(r.status).toBe(200);
      expect(r.body).toEqual(m);
    }
    expect((await c.conversation(expected.conversationId)).tip).toBe(expected.tip);
    expect(bodyColumns(path.join(dir, 'readmodels.sqlite'))).toBe(0);
  });
});
