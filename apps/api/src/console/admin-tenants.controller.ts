import { Controller, Get, UseGuards } from '@nestjs/common';
import { AdminGuard } from '../auth/admin.guard';
import { TenantDirectoryService } from '@arbor/application';

/** Cap on one answer; the directory is in memory, so this bounds the bytes, not a scan. */
const MAX_TENANTS = 1000;

@UseGuards(AdminGuard)
@Controller('v1/tenants')
export class AdminTenantsController {
  constructor(private readonly directory: TenantDirectoryService) {}

  @Get()
  async list() {
    await this.directory.fresh();
    const all = this.directory.tenants();
    return { items: all.slice(0, MAX_TENANTS), truncated: all.length > MAX_TENANTS };
  }
}
