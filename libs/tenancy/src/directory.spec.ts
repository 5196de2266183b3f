import { authenticate, emptyDirectory, evolveDirectory, type TenantDirectory } from './directory';
import { type TenantEvent } from './events';
import { issueKey, parseKey, randomAlphanumeric, safeEqual } from './keys';

const fold = (events: TenantEvent[]): TenantDirectory =>
  events.reduce(evolveDirectory, emptyDirectory());

describe('tenant directory', () => {
  const a = issueKey();
  const b = issueKey();
  const dir = fold([
    { type: 'TenantCreated', data: { tenantId: 'ta', name: 'A' } },
    { type: 'TenantCreated', data: { tenantId: 'tb', name: null } },
    {
      type: 'ApiKeyIssued',
      data: { tenantId: 'ta', keyId: a.keyId, secretHash: a.secretHash, label: null },
    },
    {
      type: 'ApiKeyIssued',
      data: { tenantId: 'tb', keyId: b.keyId, secretHash: b.secretHash, label: null },
    },
  ]);

  it('maps each key to its own tenant only', () => {
    expect(authenticate(dir, `Bearer ${a.apiKey}`)).toEqual({
      ok: true,
      tenantId: 'ta',
      keyId: a.keyId,
    });
    expect(authenticate(dir, `Bearer ${b.apiKey}`)).toEqual({
      ok: true,
      tenantId: 'tb',
      keyId: b.keyId,
    });
  });

  it('stores only a hash of the secret', () => {
    const stored = JSON.stringify([...dir.keys.values()]);
    expect(stored).not.toContain(parseKey(a.apiKey)!.secret);
  });

  it.each([
    [undefined, 'missing'],
    ['', 'missing'],
    ['Basic abc', 'malformed'],
    [`Bearer ${a.apiKey} extra`, 'malformed'],
    ['Bearer arb_short_x', 'malformed'],
  ])('rejects %p as %s', (header, reason) => {
    expect(authenticate(dir, header)).toEqual({ ok: false, reason });
  });

  it('rejects a known key id with a wrong secret', () => {
    const forged = `arb_${a.keyId}_${parseKey(b.apiKey)!.secret}`;
    expect(authenticate(dir, `Bearer ${forged}`)).toEqual({ ok: false, reason: 'unknown' });
  });

  it('rejects a revoked key and keeps the others', () => {
    const after = evolveDirectory(dir, {
      type: 'ApiKeyRevoked',
      data: { tenantId: 'ta', keyId: a.keyId },
    });
    expect(authenticate(after, `Bearer ${a.apiKey}`)).toEqual({ ok: false, reason: 'revoked' });
    expect(authenticate(after, `Bearer ${b.apiKey}`).ok).toBe(true);
    expect(authenticate(dir, `Bearer ${a.apiKey}`).ok).toBe(true);
  });

  it('ignores a revocation naming another tenant', () => {
    const after = evolveDirectory(dir, {
      type: 'ApiKeyRevoked',
      data: { tenantId: 'tb', keyId: a.keyId },
    });
    expect(authenticate(after, `Bearer ${a.apiKey}`).ok).toBe(true);
  });

  it("replaces a tenant's context settings as a whole, and only that tenant's", () => {
    const set = (tenantId: string, models: Record<string, { snapshotShape?: string | null }>) =>
      ({ type: 'TenantContextSettingsSet', data: { tenantId, models } }) as const;
    expect(dir.tenants.get('ta')!.contextModels).toEqual({});
    const once = evolveDirectory(
      dir,
      set('ta', { 'claude-3-haiku': { snapshotShape: 'claude-conservative' } }),
    );
    const twice = evolveDirectory(once, set('ta', { 'gpt-4o': { snapshotShape: null } }));
    expect(once.tenants.get('ta')!.contextModels).toEqual({
      'claude-3-haiku': { snapshotShape: 'claude-conservative' },
    });
    expect(twice.tenants.get('ta')!.contextModels).toEqual({ 'gpt-4o': { snapshotShape: null } });
    expect(twice.tenants.get('ta')!.contextSettingsVersion).toBe(2);
    expect(twice.tenants.get('tb')!.contextModels).toEqual({});
    // A tenant never created gets nothing (and the fold does not invent it).
    expect(evolveDirectory(dir, set('nobody', {})).tenants.has('nobody')).toBe(false);
    // Keys are untouched.
    expect(authenticate(twice, `Bearer ${a.apiKey}`).ok).toBe(true);
  });

  it('makes unbiased alphanumeric ids and compares in constant time', () => {
    expect(randomAlphanumeric(40)).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
  });
});
