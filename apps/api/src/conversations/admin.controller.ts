import { Controller, Get, HttpCode, Inject, Post, UseGuards } from '@nestjs/common';
import { type EventStore } from '@arbor/event-store';
import { EVENT_STORE } from '../store/store.provider';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminGuard } from '../auth/admin.guard';
import { ReadModelsService } from './read-models.service';

@ApiTags('admin')
@ApiBearerAuth()
@UseGuards(AdminGuard)
@Controller('v1/admin')
export class AdminController {
  constructor(
    private readonly readModels: ReadModelsService,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  @Get('log')
  @ApiOperation({
    summary: "The log's head: its last global (`$all`) position, for operators only",
    description:
      'Tenant answers never carry global positions (they would show how much others write).',
  })
  async log() {
    const head = await this.store.headPosition();
    return { kind: this.store.kind, position: head === null ? null : head.toString() };
  }

  @Post('projections/rebuild')
  @HttpCode(200)
  @ApiOperation({ summary: 'Drop every read model and replay the log from position 0' })
  rebuild() {
    return this.readModels.rebuild();
  }

  @Get('projections')
  @ApiOperation({ summary: 'Projector position and state' })
  status() {
    const s = this.readModels.status();
    return { ...s, position: s.position === null ? null : s.position.toString() };
  }
}
