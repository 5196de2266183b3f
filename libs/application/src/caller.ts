/** Who is calling: set by an edge (the HTTP auth guard, the embedded CLI), read by handlers. */
export interface Caller {
  tenantId: string;
  keyId: string;
  /** What goes into event metadata as the actor. */
  actor: string;
  correlationId?: string;
}
