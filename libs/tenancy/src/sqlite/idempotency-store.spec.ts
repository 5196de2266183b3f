import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { IdempotencyStore } from './idempotency-store';

describe('IdempotencyStore on a file written before answers named their subject', () => {
  it("drops the admin's stored answers (they held API keys) and keeps the tenants'", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-idem-'));
    try {
      // The table as the previous version created it, with what it stored.
      const old = new Database(path.join(dir, 'idempotency.sqlite'));
      old.exec(`CREATE TABLE idempotency_keys (
        tenant TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL,
        status INTEGER NOT NULL, body TEXT NOT NULL, created_at INTEGER NOT NULL,
        PRIMARY KEY (tenant, key)) WITHOUT ROWID`);
      const put = old.prepare('INSERT INTO idempotency_keys VALUES (?, ?, ?, ?, ?, ?)');
      put.run('admin:admin', 'k1', 'f', 201, '{"id":"t1","apiKey":"arb_k_SECRET"}', Date.now());
      put.run('t1', 'k2', 'f', 201, '{"id":"c1"}', Date.now());
      old.close();
      const store = new IdempotencyStore(dir, 3600_000, 'NORMAL');
      expect(store.get('admin:admin', 'k1')).toBeUndefined();
      expect(store.get('t1', 'k2')?.body).toBe('{"id":"c1"}');
      store.put('admin:admin', 'k3', { fingerprint: 'f', status: 201, body: '{}', subject: 't9' });
      store.forgetTenant('t9');
      expect(store.get('admin:admin', 'k3')).toBeUndefined();
      store.close();
      const bytes = fs
        .readdirSync(dir)
        .map((f) => fs.readFileSync(path.join(dir, f)).toString('latin1'))
        .join('');
      expect(bytes).not.toContain('SECRET');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
