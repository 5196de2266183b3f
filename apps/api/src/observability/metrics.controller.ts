import { Controller, Get, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { MetricsService } from '@arbor/application';
import { AdminGuard } from '../auth/admin.guard';

/** `GET /metrics`: the Prometheus text format, admin key only (ARBOR_METRICS_PORT serves it open). */
@UseGuards(AdminGuard)
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  async metricsText(@Res() reply: FastifyReply): Promise<void> {
    const text = await this.metrics.text();
    void reply.header('content-type', this.metrics.contentType).send(text);
  }
}
