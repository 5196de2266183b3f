#!/usr/bin/env node
import 'reflect-metadata';
import { readConfig } from '../../api/src/config/config';
import { createEventStore } from '../../api/src/store/store.provider';
import { PROJECTION_FILTER, PROJECTIONS } from '../../api/src/conversations/read-models.service';
import { createProjector, openReadModelDb, readModelDataPath } from '@arbor/projections';
import { createProgress } from './progress';

const USAGE = `arbor — event-sourced conversation history for LLM agents

usage:
  arbor serve              start the HTTP service (same as npm start)
  arbor rebuild            drop the read models and replay the log from position 0
                           (stop the server first, or call POST /v1/admin/projections/rebuild)
  arbor help

configuration comes from the environment (ARBOR_DATA_DIR, EVENTSTORE_CONNECTION_STRING, ...): see README.md`;

const rebuild = async (): Promise<void> => {
  const config = readConfig(process.env);
  const store = createEventStore(config);
  const db = openReadModelDb(readModelDataPath(config.dataDir));
  const projector = createProjector({
    store,
    db,
    set: { projections: PROJECTIONS, filter: PROJECTION_FILTER },
  });
  const head = await store.headPosition();
  const total = head === null ? 0 : Number(head);
  const progress = createProgress('rebuild', total);
  await projector.rebuild((p) => progress.update(Number(p)));
  await projector.stop();
  progress.finish(`read models rebuilt from ${total} events (${config.dataDir})`);
  db.close();
  await store.close();
};

const main = async (argv: string[]): Promise<number> => {
  const [command] = argv;
  switch (command) {
    case 'serve':
      await import('../../api/src/main');
      return -1;
    case 'rebuild':
      await rebuild();
      return 0;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      console.log(USAGE);
      return 0;
    default:
      console.error(`arbor: unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
      return 2;
  }
};

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    console.error(`arbor: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
