/** Tenant events live in one stream per tenant: `tenant-<tenantId>.profile`. */
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

export type TenantEvent = TenantCreated | ApiKeyIssued | ApiKeyRevoked;

export const TENANT_EVENT_TYPES: readonly TenantEvent['type'][] = [
  'TenantCreated',
  'ApiKeyIssued',
  'ApiKeyRevoked',
];

export const TENANT_CATEGORY = 'tenant';
export const TENANT_ENTITY = 'profile';
