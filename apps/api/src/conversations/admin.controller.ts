import { Controller, Get, HttpCode, Inject, Post, UseGuards } from '@nestjs/common';
import { type EventStore } from '@arbor/event-store';
import { EVENT_STORE } from '@arbor/application';
import { AdminGuard } from '../auth/admin.guard';
import { ReadModelsService } from '@arbor/application';

@UseGuards(AdminGuard)
@Controller('v1/admin')
export class AdminController {
  constructor(
    private readonly readModels: ReadModelsService,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  /** The log's head (its last global `$all` position): operators only, never in tenant answers. */
  @Get('log')
  async log() {
    const head = await this.store.headPosition();
    return { kind: this.store.kind, position: head === null ? null : head.toString() };
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
