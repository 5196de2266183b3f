import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { ConversationCommandHandler } from './commands';
import { ConversationRepository } from './conversation.repository';
import { ConversationsController } from './conversations.controller';
import { QUERY_HANDLERS } from './queries';
import { ReadModelsService } from './read-models.service';
import { AdminController } from './admin.controller';

@Module({
  imports: [CqrsModule],
  controllers: [ConversationsController, AdminController],
  providers: [
    ConversationRepository,
    ReadModelsService,
    ConversationCommandHandler,
    ...QUERY_HANDLERS,
  ],
  exports: [ConversationRepository, ReadModelsService],
})
export class ConversationsModule {}
