import { createApp } from './bootstrap';
import { ConfigError, readConfig } from '@arbor/application';

const main = async (): Promise<void> => {
  let config;
  try {
    config = readConfig(process.env);
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(`arbor: ${e.message}`);
      process.exit(2);
    }
    throw e;
  }
  const app = await createApp(config);
  await app.listen(config.port, config.host);
  console.log(
    `arbor listening on http://${config.host}:${config.port} (store: ${
      config.eventStoreConnectionString ? 'eventstoredb' : `sqlite in ${config.dataDir}`
    }; docs at /docs)`,
  );
};

void main();
