import { Controller, Get, HttpCode, Post, UseGuards } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { GetLogHead, GetReadModelStatus, RebuildReadModels } from '@arbor/application';
import { AdminGuard } from '../auth/admin.guard';

@UseGuards(AdminGuard)
@Controller('v1/admin')
export class AdminController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  /** The log's head (its last global `$all` position): operators only, never in tenant answers. */
  @Get('log')
  log() {
    return this.queries.execute(new GetLogHead());
  }

  @Post('projections/rebuild')
  @HttpCode(200)
  rebuild() {
    return this.commands.execute(new RebuildReadModels());
  }

  @Get('projections')
  async status() {
    const s = await this.queries.execute(new GetReadModelStatus());
    return { ...s, position: s.position === null ? null : s.position.toString() };
  }
}
