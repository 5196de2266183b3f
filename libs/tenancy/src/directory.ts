import { type ContextCapabilityOverride, type TenantEvent, type TenantRateLimit } from './events';
import { parseKey, secretMatches } from './keys';

/** Folded from the tenant streams; one small record per key and tenant, so it stays in memory. */
export interface KeyRecord {
  keyId: string;
  tenantId: string;
  secretHash: string;
  label: string | null;
  revoked: boolean;
}

export interface TenantRecord {
  tenantId: string;
  name: string | null;
  keyIds: string[];
  contextModels: Readonly<Record<string, ContextCapabilityOverride>>;
  contextSettingsVersion: number;
  retentionDays?: number | null;
  erased?: boolean;
  rateLimit: TenantRateLimit | null;
}

export interface TenantDirectory {
  tenants: ReadonlyMap<string, TenantRecord>;
  keys: ReadonlyMap<string, KeyRecord>;
}

export const emptyDirectory = (): TenantDirectory => ({ tenants: new Map(), keys: new Map() });

export const evolveDirectory = (dir: TenantDirectory, event: TenantEvent): TenantDirectory => {
  switch (event.type) {
    case 'TenantCreated': {
      const tenants = new Map(dir.tenants);
      tenants.set(event.data.tenantId, {
        tenantId: event.data.tenantId,
        name: event.data.name,
        keyIds: [],
        contextModels: {},
        contextSettingsVersion: 0,
        rateLimit: null,
      });
      return { ...dir, tenants };
    }
    case 'ApiKeyIssued': {
      const tenant = dir.tenants.get(event.data.tenantId);
      if (!tenant) return dir;
      const tenants = new Map(dir.tenants);
      tenants.set(tenant.tenantId, { ...tenant, keyIds: [...tenant.keyIds, event.data.keyId] });
      const keys = new Map(dir.keys);
      keys.set(event.data.keyId, {
        keyId: event.data.keyId,
        tenantId: event.data.tenantId,
        secretHash: event.data.secretHash,
        label: event.data.label,
        revoked: false,
      });
      return { tenants, keys };
    }
    case 'ApiKeyRevoked': {
      const key = dir.keys.get(event.data.keyId);
      if (!key || key.tenantId !== event.data.tenantId) return dir;
      const keys = new Map(dir.keys);
      keys.set(key.keyId, { ...key, revoked: true });
      return { ...dir, keys };
    }
    case 'TenantRetentionSet':
    case 'TenantErased': {
      const tenant = dir.tenants.get(event.data.tenantId);
      if (!tenant) return dir;
      const tenants = new Map(dir.tenants);
      if (event.type === 'TenantRetentionSet') {
        tenants.set(tenant.tenantId, { ...tenant, retentionDays: event.data.retentionDays });
        return { ...dir, tenants };
      }
      // Erased: name and key labels are forgotten here too, so no answer shows them afterwards.
      tenants.set(tenant.tenantId, { ...tenant, name: null, erased: true });
      const keys = new Map(dir.keys);
      for (const keyId of tenant.keyIds) {
        const key = keys.get(keyId);
        if (key !== undefined) keys.set(keyId, { ...key, label: null });
      }
      return { tenants, keys };
    }
    case 'TenantContextSettingsSet': {
      const tenant = dir.tenants.get(event.data.tenantId);
      if (!tenant) return dir;
      const tenants = new Map(dir.tenants);
      tenants.set(tenant.tenantId, {
        ...tenant,
        contextModels: event.data.models,
        contextSettingsVersion: tenant.contextSettingsVersion + 1,
      });
      return { ...dir, tenants };
    }
    case 'TenantRateLimitSet': {
      const tenant = dir.tenants.get(event.data.tenantId);
      if (!tenant) return dir;
      const tenants = new Map(dir.tenants);
      tenants.set(tenant.tenantId, { ...tenant, rateLimit: event.data.limit });
      return { ...dir, tenants };
    }
  }
};

export type Authentication =
  | { ok: true; tenantId: string; keyId: string }
  | { ok: false; reason: 'missing' | 'malformed' | 'unknown' | 'revoked' };

/** Resolves an `Authorization` header value to a tenant. Pure over the directory. */
export const authenticate = (
  dir: TenantDirectory,
  authorization: string | undefined,
): Authentication => {
  if (!authorization) return { ok: false, reason: 'missing' };
  // The scheme is case-insensitive (RFC 9110 §11.1).
  const m = /^bearer[ \t]+([^\s]+)$/i.exec(authorization.trim());
  if (!m) return { ok: false, reason: 'malformed' };
  const parsed = parseKey(m[1]);
  if (!parsed) return { ok: false, reason: 'malformed' };
  const key = dir.keys.get(parsed.keyId);
  if (!key || !secretMatches(parsed.secret, key.secretHash))
    return { ok: false, reason: 'unknown' };
  if (key.revoked) return { ok: false, reason: 'revoked' };
  return { ok: true, tenantId: key.tenantId, keyId: key.keyId };
};
