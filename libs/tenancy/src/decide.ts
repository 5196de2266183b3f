import { canonicalJson } from '@arbor/domain';
import { emptyDirectory, evolveDirectory, type TenantDirectory } from './directory';
import { type ContextCapabilityOverride, type TenantEvent, type TenantRateLimit } from './events';

/** Decided like a conversation: pure, events out, nothing appended when nothing changes. */
export interface TenantState {
  readonly revision: number;
  readonly directory: TenantDirectory;
}

export const initialTenantState = (): TenantState => ({
  revision: -1,
  directory: emptyDirectory(),
});

export const evolveTenant = (state: TenantState, event: TenantEvent): TenantState => ({
  revision: state.revision + 1,
  directory: evolveDirectory(state.directory, event),
});

export type TenantCommand =
  | { type: 'createTenant'; tenantId: string; name: string | null; key: NewKey }
  | { type: 'issueKey'; tenantId: string; key: NewKey & { label: string | null } }
  | { type: 'revokeKey'; tenantId: string; keyId: string }
  | { type: 'setRetention'; tenantId: string; retentionDays: number | null }
  | { type: 'eraseTenant'; tenantId: string; reason: string; conversations: number }
  | {
      type: 'setContextSettings';
      tenantId: string;
      models: Record<string, ContextCapabilityOverride>;
    }
  | { type: 'setRateLimit'; tenantId: string; limit: TenantRateLimit | null };

export interface NewKey {
  keyId: string;
  secretHash: string;
}

export type TenantErrorCode = 'tenant_exists' | 'tenant_not_found' | 'key_not_found';

export type TenantDecision =
  { ok: true; events: TenantEvent[] } | { ok: false; code: TenantErrorCode; message: string };

const ok = (events: TenantEvent[]): TenantDecision => ({ ok: true, events });
const fail = (code: TenantErrorCode, message: string): TenantDecision => ({
  ok: false,
  code,
  message,
});

/** Pure: the events a tenant command appends to its tenant's stream, or why it cannot. */
export const decideTenant = (command: TenantCommand, state: TenantState): TenantDecision => {
  const { tenantId } = command;
  const tenant = state.directory.tenants.get(tenantId);
  switch (command.type) {
    case 'createTenant':
      if (state.revision >= 0) return fail('tenant_exists', 'The tenant id is taken.');
      return ok([
        { type: 'TenantCreated', data: { tenantId, name: command.name } },
        {
          type: 'ApiKeyIssued',
          data: { tenantId, ...command.key, label: 'initial' },
        },
      ]);
    case 'setRetention':
      if (!tenant) return fail('tenant_not_found', 'Tenant not found.');
      if ((tenant.retentionDays ?? null) === command.retentionDays) return ok([]);
      return ok([
        { type: 'TenantRetentionSet', data: { tenantId, retentionDays: command.retentionDays } },
      ]);
    case 'eraseTenant': {
      if (!tenant) return fail('tenant_not_found', 'Tenant not found.');
      const revoke: TenantEvent[] = tenant.keyIds
        .filter((keyId) => state.directory.keys.get(keyId)?.revoked === false)
        .map((keyId) => ({ type: 'ApiKeyRevoked', data: { tenantId, keyId } }));
      const erased: TenantEvent = {
        type: 'TenantErased',
        data: { tenantId, reason: command.reason, conversations: command.conversations },
      };
      return ok([...revoke, erased]);
    }
    case 'issueKey':
      if (!tenant) return fail('tenant_not_found', 'Tenant not found.');
      if (tenant.erased === true) return fail('tenant_not_found', 'The tenant was erased.');
      return ok([{ type: 'ApiKeyIssued', data: { tenantId, ...command.key } }]);
    case 'revokeKey': {
      const key = state.directory.keys.get(command.keyId);
      if (!tenant || !key || key.tenantId !== tenantId)
        return fail('key_not_found', 'No such key for this tenant.');
      return ok(
        key.revoked ? [] : [{ type: 'ApiKeyRevoked', data: { tenantId, keyId: key.keyId } }],
      );
    }
    case 'setContextSettings':
      if (!tenant) return fail('tenant_not_found', 'Tenant not found.');
      if (canonicalJson(tenant.contextModels) === canonicalJson(command.models)) return ok([]);
      return ok([{ type: 'TenantContextSettingsSet', data: { tenantId, models: command.models } }]);
    case 'setRateLimit':
      if (!tenant) return fail('tenant_not_found', 'Tenant not found.');
      if (canonicalJson(tenant.rateLimit) === canonicalJson(command.limit)) return ok([]);
      return ok([{ type: 'TenantRateLimitSet', data: { tenantId, limit: command.limit } }]);
  }
};
