import { Controller, Get, Inject } from '@nestjs/common';
import { type EventStore } from '@arbor/event-store';
import { EVENT_STORE } from '@arbor/application';

@Controller('health')
export class HealthController {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  @Get()
  async health(): Promise<{ status: 'ok'; store: { kind: string; position: string | null } }> {
    const head = await this.store.headPosition();
    return {
      status: 'ok',
      store: { kind: this.store.kind, position: head === null ? null : head.toString() },
    };
  }
}
