export interface Caller {
  tenantId: string;
  keyId: string;
  actor: string;
  correlationId?: string;
}
