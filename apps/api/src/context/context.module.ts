import { Module } from '@nestjs/common';
import { ConversationsModule } from '../conversations/conversations.module';
import { CompactionsController, ContextController } from './context.controller';
import { renderPagesProvider, summarizeProvider } from './context.providers';
import { ContextService } from './context.service';

@Module({
  imports: [ConversationsModule],
  controllers: [ContextController, CompactionsController],
  providers: [ContextService, renderPagesProvider, summarizeProvider],
})
export class ContextModule {}
