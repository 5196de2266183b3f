import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { ConversationsModule } from '../conversations/conversations.module';
import { AdminTenantsController } from './admin-tenants.controller';
import { VerifyController } from './verify.controller';

/** The routes the operator console needed that the API did not have (both read-only). */
@Module({
  imports: [CqrsModule, ConversationsModule],
  controllers: [VerifyController, AdminTenantsController],
})
export class ConsoleRoutesModule {}
