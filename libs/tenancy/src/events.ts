/** Tenant events live in one stream per tenant: `tenant-<tenantId>.profile`. */
import type { ContextCapabilitiesRecord } from '@arbor/domain/compaction';

export interface TenantCreated {
  type: 'TenantCreated';
  data: { tenantId: string; name: string | null };
}

export interface ApiKeyIssued {
  type: 'ApiKeyIssued';
  data: { tenantId: string; keyId: string; secretHash: string; label: string | null };
}

export interface ApiKeyRevoked {
  type: 'ApiKeyRevoked';
  data: { tenantId: string; keyId: string };
}

/** Absent fields keep the default table's value. */
export type ContextCapabilityOverride = {
  -readonly [K in keyof ContextCapabilitiesRecord]?: ContextCapabilitiesRecord[K];
};

/** Replaced as a whole; the longest matching model-name prefix wins. */
export interface TenantContextSettingsSet {
  type: 'TenantContextSettingsSet';
  data: { tenantId: string; models: Record<string, ContextCapabilityOverride> };
}

export interface TenantRetentionSet {
  type: 'TenantRetentionSet';
  data: { tenantId: string; retentionDays: number | null };
}

export interface TenantErased {
  type: 'TenantErased';
  data: { tenantId: string; reason: string; conversations: number };
}

export type TenantEvent =
  | TenantCreated
  | ApiKeyIssued
  | ApiKeyRevoked
  | TenantContextSettingsSet
  | TenantRetentionSet
  | TenantErased
  | TenantRateLimitSet;
export interface TenantRateLimit {
  ratePerSecond: number;
  burst: number;
}

export interface TenantRateLimitSet {
  type: 'TenantRateLimitSet';
  data: { tenantId: string; limit: TenantRateLimit | null };
}

export const TENANT_EVENT_TYPES: readonly TenantEvent['type'][] = [
  'TenantCreated',
  'ApiKeyIssued',
  'ApiKeyRevoked',
  'TenantContextSettingsSet',
  'TenantRetentionSet',
  'TenantErased',
  'TenantRateLimitSet',
];

export const TENANT_CATEGORY = 'tenant';
export const TENANT_ENTITY = 'profile';
