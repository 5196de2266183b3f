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

/**
 * How the context ladder should treat one family of models, for this tenant: the fields of
 * `@arbor/context`'s `ModelCapabilities` a tenant may set, with the page shape by name (an id of
 * `SNAPSHOT_SHAPES`, or null for no snapshots). Absent fields keep the default table's value.
 */
export type ContextCapabilityOverride = {
  -readonly [K in keyof ContextCapabilitiesRecord]?: ContextCapabilitiesRecord[K];
};

/**
 * The tenant's context settings, replaced as a whole: capability overrides keyed by lowercase
 * model-name prefix (the longest matching prefix wins, like the default table).
 */
export interface TenantContextSettingsSet {
  type: 'TenantContextSettingsSet';
  data: { tenantId: string; models: Record<string, ContextCapabilityOverride> };
}

/** The tenant's retention: conversations idle longer than this many days are erased (null: kept). */
export interface TenantRetentionSet {
  type: 'TenantRetentionSet';
  data: { tenantId: string; retentionDays: number | null };
}

/** The tenant was erased: every conversation's key destroyed, every API key revoked. */
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
/** A tenant's request rate limit (token bucket), set by the admin; null: the service default. */
export interface TenantRateLimit {
  /** Tokens added per second (sustained requests per second). */
  ratePerSecond: number;
  /** Bucket size: how many requests may arrive at once. */
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
