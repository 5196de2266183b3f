import { Controller, Get, HttpCode, Post, UseGuards } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { GetLogHead, ReadModelsService } from '@arbor/application';
import { AdminGuard } from '../auth/admin.guard';

@UseGuards(AdminGuard)
@Controller('v1/admin')
export class AdminController {
  constructor(
    private readonly readModels: ReadModelsService,
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
    return this.readModels.rebuild();
  }

  @Get('projections')
  status() {
    const s = this.readModels.status();
    return { ...s, position: s.position === null ? null : s.position.toString() };
  }
}
