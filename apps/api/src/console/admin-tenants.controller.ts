import { Controller, Get, UseGuards } from '@nestjs/common';
import { AdminGuard } from '../auth/admin.guard';
import { QueryBus } from '@nestjs/cqrs';
import { ListTenants } from '@arbor/application';

/** Cap on one answer; the directory is in memory, so this bounds the bytes, not a scan. */
const MAX_TENANTS = 1000;

@UseGuards(AdminGuard)
@Controller('v1/tenants')
export class AdminTenantsController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  async list() {
    const all = await this.queries.execute(new ListTenants());
    return { items: all.slice(0, MAX_TENANTS), truncated: all.length > MAX_TENANTS };
  }
}
