import { Controller, Get } from '@nestjs/common';

/**
 * Unauthenticated liveness: it says the service is up and nothing else. The log's position (which
 * would show anyone how much every tenant writes) is at the admin route `GET /v1/admin/log`.
 */
@Controller('health')
export class HealthController {
  @Get()
  health(): { status: 'ok' } {
    return { status: 'ok' };
  }
}
