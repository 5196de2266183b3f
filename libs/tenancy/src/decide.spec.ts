import { decideTenant, evolveTenant, initialTenantState, type TenantCommand } from './decide';

const apply = (commands: TenantCommand[]) =>
  commands.reduce((state, command) => {
    const d = decideTenant(command, state);
    if (!d.ok) throw new Error(d.code);
    return d.events.reduce(evolveTenant, state);
  }, initialTenantState());

describe('tenant decider', () => {
  const key = { keyId: 'k1', secretHash: 'h1' };
  const created = apply([{ type: 'createTenant', tenantId: 't', name: 'T', key }]);

  it('creates a tenant with its initial key, once', () => {
    expect(created.revision).toBe(1);
    expect(created.directory.tenants.get('t')?.keyIds).toEqual(['k1']);
    expect(
      decideTenant({ type: 'createTenant', tenantId: 't', name: null, key }, created),
    ).toMatchObject({ ok: false, code: 'tenant_exists' });
  });

  it('refuses keys and settings for a tenant that does not exist', () => {
    const none = initialTenantState();
    expect(
      decideTenant({ type: 'issueKey', tenantId: 't', key: { ...key, label: null } }, none),
    ).toMatchObject({ ok: false, code: 'tenant_not_found' });
    expect(
      decideTenant({ type: 'setContextSettings', tenantId: 't', models: {} }, none),
    ).toMatchObject({ ok: false, code: 'tenant_not_found' });
    expect(decideTenant({ type: 'revokeKey', tenantId: 't', keyId: 'k1' }, none)).toMatchObject({
      ok: false,
      code: 'key_not_found',
    });
  });

  it('revokes a key once; revoking it again appends nothing', () => {
    const revoked = apply([
      { type: 'createTenant', tenantId: 't', name: 'T', key },
      { type: 'revokeKey', tenantId: 't', keyId: 'k1' },
    ]);
    expect(revoked.directory.keys.get('k1')?.revoked).toBe(true);
    expect(decideTenant({ type: 'revokeKey', tenantId: 't', keyId: 'k1' }, revoked)).toEqual({
      ok: true,
      events: [],
    });
    expect(
      decideTenant({ type: 'revokeKey', tenantId: 't', keyId: 'nope' }, revoked),
    ).toMatchObject({ ok: false, code: 'key_not_found' });
  });

  it('sets context settings only when they change', () => {
    const models = { 'gpt-4o': { snapshotShape: null } };
    const set = apply([
      { type: 'createTenant', tenantId: 't', name: 'T', key },
      { type: 'setContextSettings', tenantId: 't', models },
    ]);
    expect(set.directory.tenants.get('t')?.contextSettingsVersion).toBe(1);
    expect(
      decideTenant({ type: 'setContextSettings', tenantId: 't', models: { ...models } }, set),
    ).toEqual({ ok: true, events: [] });
    expect(
      decideTenant({ type: 'setContextSettings', tenantId: 't', models: {} }, set),
    ).toMatchObject({ ok: true, events: [{ type: 'TenantContextSettingsSet' }] });
  });
});
