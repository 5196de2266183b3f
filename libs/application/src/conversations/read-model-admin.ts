import {
  Command,
  CommandHandler,
  type ICommandHandler,
  type IQueryHandler,
  Query,
  QueryHandler,
} from '@nestjs/cqrs';
import { ReadModelsService } from './read-models.service';

export class RebuildReadModels extends Command<{ position: string | null }> {}

export class GetReadModelStatus extends Query<ReturnType<ReadModelsService['status']>> {}

@CommandHandler(RebuildReadModels)
export class RebuildReadModelsHandler implements ICommandHandler<RebuildReadModels> {
  constructor(private readonly readModels: ReadModelsService) {}
  execute() {
    return this.readModels.rebuild();
  }
}

@QueryHandler(GetReadModelStatus)
export class GetReadModelStatusHandler implements IQueryHandler<GetReadModelStatus> {
  constructor(private readonly readModels: ReadModelsService) {}
  async execute() {
    return this.readModels.status();
  }
}

export const READ_MODEL_ADMIN_HANDLERS = [RebuildReadModelsHandler, GetReadModelStatusHandler];
