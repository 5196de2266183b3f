import { Controller, Get, HttpCode, Post, UseGuards } from '@nestjs/common';
import { AdminGuard } from '../auth/admin.guard';
import { ReadModelsService } from '@arbor/application';

@UseGuards(AdminGuard)
@Controller('v1/admin')
export class AdminController {
  constructor(private readonly readModels: ReadModelsService) {}

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
