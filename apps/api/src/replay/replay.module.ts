import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { renderPagesProvider } from '../context/context.providers';
import { ConversationsModule } from '../conversations/conversations.module';
import { REPLAY_QUERY_HANDLERS } from './queries';
import { ReplayController } from './replay.controller';
import { ReplayService } from './replay.service';

/** Replay to a revision and reproduction of past contexts, read from the log itself. */
@Module({
  imports: [CqrsModule, ConversationsModule],
  controllers: [ReplayController],
  providers: [ReplayService, renderPagesProvider, ...REPLAY_QUERY_HANDLERS],
})
export class ReplayModule {}
