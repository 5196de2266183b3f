import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';

/**
 * Unauthenticated liveness: it says the service is up and nothing else. The log's position (which
 * would show anyone how much every tenant writes) is at the admin route `GET /v1/admin/log`.
 */
@ApiTags('health')
@Controller('health')
export class HealthController {
  @Get()
  @ApiOkResponse({
    schema: { type: 'object', properties: { status: { type: 'string', enum: ['ok'] } } },
  })
  health(): { status: 'ok' } {
    return { status: 'ok' };
  }
}
