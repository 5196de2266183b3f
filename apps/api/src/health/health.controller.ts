import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { type EventStore } from '@arbor/event-store';
import { EVENT_STORE } from '@arbor/application';

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  @Get()
  @ApiOkResponse({
    schema: {
      type: 'object',
      properties: {
        status: { type: 'string', enum: ['ok'] },
        store: {
          type: 'object',
          properties: {
            kind: { type: 'string', example: 'sqlite' },
            position: { type: 'string', nullable: true, description: 'last global position' },
          },
        },
      },
    },
  })
  async health(): Promise<{ status: 'ok'; store: { kind: string; position: string | null } }> {
    const head = await this.store.headPosition();
    return {
      status: 'ok',
      store: { kind: this.store.kind, position: head === null ? null : head.toString() },
    };
  }
}
