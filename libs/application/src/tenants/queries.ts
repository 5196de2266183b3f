import { type IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { RateLimiterService } from '../rate-limit/rate-limiter.service';
import { type ContextSettings, tenantLimits, type TenantLimits } from './commands';
import { TenantDirectoryService } from './tenant-directory.service';

/** Each read first lets the directory catch up with the log, so other replicas' writes show. */
export class ListTenants extends Query<
  { id: string; name: string | null; keys: number; activeKeys: number }[]
> {}

export class GetTenantLimits extends Query<TenantLimits> {
  constructor(readonly tenantId: string) {
    super();
  }
}

export class ListApiKeys extends Query<
  { keyId: string; label: string | null; revoked: boolean }[]
> {
  constructor(readonly tenantId: string) {
    super();
  }
}

export class GetContextSettings extends Query<ContextSettings> {
  constructor(readonly tenantId: string) {
    super();
  }
}

@QueryHandler(ListTenants)
export class ListTenantsHandler implements IQueryHandler<ListTenants> {
  constructor(private readonly directory: TenantDirectoryService) {}
  async execute() {
    await this.directory.fresh();
    return this.directory.tenants();
  }
}

@QueryHandler(GetTenantLimits)
export class GetTenantLimitsHandler implements IQueryHandler<GetTenantLimits> {
  constructor(
    private readonly directory: TenantDirectoryService,
    private readonly limiter: RateLimiterService,
  ) {}
  async execute(q: GetTenantLimits) {
    await this.directory.fresh();
    return tenantLimits(this.directory, this.limiter, q.tenantId);
  }
}

@QueryHandler(ListApiKeys)
export class ListApiKeysHandler implements IQueryHandler<ListApiKeys> {
  constructor(private readonly directory: TenantDirectoryService) {}
  async execute(q: ListApiKeys) {
    await this.directory.fresh();
    return this.directory.listKeys(q.tenantId);
  }
}

@QueryHandler(GetContextSettings)
export class GetContextSettingsHandler implements IQueryHandler<GetContextSettings> {
  constructor(private readonly directory: TenantDirectoryService) {}
  async execute(q: GetContextSettings) {
    await this.directory.fresh();
    return this.directory.contextSettings(q.tenantId);
  }
}

export const TENANT_QUERY_HANDLERS = [
  ListTenantsHandler,
  GetTenantLimitsHandler,
  ListApiKeysHandler,
  GetContextSettingsHandler,
];
