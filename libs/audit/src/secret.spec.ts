import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AUDIT_KEY_FILE, loadAuditSecret, parseAuditSecret } from './secret';

describe('parseAuditSecret', () => {
  const bytes = Buffer.from(Array.from({ length: 32 }, (_, i) => i * 7));
  it('reads hex (which wins when the text is both) and base64 / base64url', () => {
    expect(parseAuditSecret(bytes.toString('hex'), 'x')).toEqual(bytes);
    expect(parseAuditSecret(` ${bytes.toString('base64')}\n`, 'x')).toEqual(bytes);
    expect(parseAuditSecret(bytes.toString('base64url'), 'x')).toEqual(bytes);
  });
  it('refuses fewer than 32 bytes and text that is neither', () => {
    expect(() => parseAuditSecret('ab'.repeat(31), 'ENV')).toThrow(/at least 32 bytes, got 31/);
    expect(() => parseAuditSecret('not a key!', 'ENV')).toThrow(/hex or base64/);
  });
});

describe('loadAuditSecret', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('uses ARBOR_AUDIT_SECRET when set, and writes no file', () => {
    const hex = 'c4'.repeat(40);
    const secret = loadAuditSecret(dir, { ARBOR_AUDIT_SECRET: hex });
    expect(secret).toMatchObject({ source: 'env', created: false });
    expect(secret.key).toEqual(Buffer.from(hex, 'hex'));
    expect(fs.existsSync(path.join(dir, AUDIT_KEY_FILE))).toBe(false);
    expect(() => loadAuditSecret(dir, { ARBOR_AUDIT_SECRET: 'abcd' })).toThrow(/32 bytes/);
  });

  it('creates <dataDir>/audit.key on first use (32 random bytes, mode 0600) and reads it back', () => {
    const data = path.join(dir, 'nested', 'data');
    const first = loadAuditSecret(data, {});
    expect(first).toMatchObject({ source: 'file', created: true });
    expect(first.key).toHaveLength(32);
    const file = path.join(data, AUDIT_KEY_FILE);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const again = loadAuditSecret(data, {});
    expect(again).toMatchObject({ source: 'file', created: false, path: file });
    expect(again.key).toEqual(first.key);
    expect(fs.readdirSync(data)).toEqual([AUDIT_KEY_FILE]);
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-'));
    try {
      expect(loadAuditSecret(other, {}).key).not.toEqual(first.key);
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });

  it('refuses a key file that is too short instead of replacing it', () => {
    fs.writeFileSync(path.join(dir, AUDIT_KEY_FILE), 'abcd\n');
    expect(() => loadAuditSecret(dir, {})).toThrow(/at least 32 bytes/);
    expect(fs.readFileSync(path.join(dir, AUDIT_KEY_FILE), 'utf8')).toBe('abcd\n');
  });

  it('an empty ARBOR_AUDIT_SECRET counts as unset', () => {
    expect(loadAuditSecret(dir, { ARBOR_AUDIT_SECRET: '  ' }).source).toBe('file');
  });

  it('processes racing to create the key all end up with the same one', async () => {
    const script = `const { loadAuditSecret } = require(${JSON.stringify(path.join(__dirname, 'secret.ts'))});
      process.stdout.write(loadAuditSecret(${JSON.stringify(dir)}, {}).key.toString('hex'));`;
    const run = () =>
      new Promise<string>((resolve, reject) =>
        execFile(process.execPath, ['-r', '@swc-node/register', '-e', script], (error, stdout) =>
          error ? reject(error) : resolve(stdout),
        ),
      );
    const keys = await Promise.all([run(), run(), run(), run()]);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toBe(fs.readFileSync(path.join(dir, AUDIT_KEY_FILE), 'utf8').trim());
    expect(fs.readdirSync(dir)).toEqual([AUDIT_KEY_FILE]);
  });
});
