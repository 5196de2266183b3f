import { Controller, Get, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminGuard } from '../auth/admin.guard';
import { ReadModelsService } from '@arbor/application';

@ApiTags('admin')
@ApiBearerAuth()
@UseGuards(AdminGuard)
@Controller('v1/admin')
export class AdminController {
  constructor(private readonly readModels: ReadModelsService) {}

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
