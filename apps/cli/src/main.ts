#!/usr/bin/env node
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { type ArborConfig, readConfig } from '@arbor/application';
import { createEventStore, createKeyStore, withContentEncryption } from '@arbor/application';
import { readModelOptions } from '@arbor/application';
import { openReadModelBackend } from '@arbor/projections';
import { exportCommand, importCommand, type Io, replayCommand, treeCommand } from './commands';
import { CliError, usageError } from './errors';
import { createProgress } from './progress';
import { escapeControl } from './terminal';
import { USAGE } from './usage';
import { verifyCommand } from './verify';
import { projectCommand } from './project';
import { eraseCommand, sweepCommand } from './erase';

const rebuild = async (config: ArborConfig): Promise<void> => {
  // Through the content keys, as the server reads it: the read models hold the messages in clear.
  const store = withContentEncryption(createEventStore(config), createKeyStore(config), config);
  const backend = await openReadModelBackend({
    ...readModelOptions(config, store, {
      error: (l) => sayErr(`${l}\n`),
      warn: (l) => sayErr(`${l}\n`),
      log: () => undefined,
      debug: () => undefined,
    }),
    projector: false,
    catchUp: false,
  });
  const head = await store.headPosition();
  const total = head === null ? 0 : Number(head);
  const progress = createProgress('rebuild', total);
  await backend.rebuild((p) => progress.update(Number(p)));
  progress.finish(`read models rebuilt from ${total} events (${config.dataDir})`);
  await backend.close();
  await store.close();
};

const say = (text: string) => void process.stdout.write(escapeControl(text));
const sayErr = (text: string) => void process.stderr.write(escapeControl(text));

const io: Io = {
  env: process.env,
  out: say,
  // An export's bytes go out as written when piped (a file's content); to a terminal, escaped.
  data: (text) => void process.stdout.write(process.stdout.isTTY ? escapeControl(text) : text),
  err: (text) => sayErr(`${text}\n`),
  stderr: process.stderr,
};

/**
 * The options of rebuild and verify: `--data-dir` only (strict: anything else is a usage
 * error), over ARBOR_DATA_DIR. Returns the environment the command runs with.
 */
const dataDirEnv = (argv: string[]): NodeJS.ProcessEnv => {
  let dataDir: string | undefined;
  try {
    const parsed = parseArgs({
      args: argv,
      options: { 'data-dir': { type: 'string' } },
      allowPositionals: false,
      strict: true,
    });
    dataDir = parsed.values['data-dir'];
  } catch (e) {
    throw usageError(e instanceof Error ? e.message : String(e));
  }
  if (dataDir === '') throw usageError('--data-dir must name a directory');
  return dataDir === undefined ? process.env : { ...process.env, ARBOR_DATA_DIR: dataDir };
};

const main = async (argv: string[]): Promise<number> => {
  const [command, ...rest] = argv;
  switch (command) {
    case 'import':
      return importCommand(rest, io);
    case 'export':
      return exportCommand(rest, io);
    case 'tree':
      return treeCommand(rest, io);
    case 'replay':
      return replayCommand(rest, io);
    case 'serve':
      // The launcher (bin/arbor.js) starts the HTTP app for `serve`; this CLI holds no HTTP edge.
      throw new CliError('usage', 'run `arbor serve` through the arbor bin, or `npm start`', 2);
    case 'project':
      return projectCommand(readConfig(dataDirEnv(rest)), (line) => say(`${line}\n`));
    case 'rebuild':
      await rebuild(readConfig(dataDirEnv(rest)));
      return 0;
    case 'erase':
      return eraseCommand(rest, say);
    case 'sweep':
      return sweepCommand(rest, say);
    case 'verify':
      return verifyCommand(readConfig(dataDirEnv(rest)), say);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      if (rest.length > 0) throw usageError(`help takes no arguments, got ${rest.join(' ')}`);
      console.log(USAGE);
      return 0;
    default:
      sayErr(`arbor: unknown command ${JSON.stringify(command)}\n\n${USAGE}\n`);
      return 2;
  }
};

/** Exits once stdout and stderr have flushed (a pipe would otherwise lose the output's tail). */
const exit = (code: number): void => {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
};

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) exit(code);
  },
  (error: unknown) => {
    if (error instanceof CliError) {
      sayErr(`arbor: ${error.code}: ${error.message}\n`);
      if (error.exitCode === 2) sayErr(`\n${USAGE}\n`);
      return exit(error.exitCode);
    }
    sayErr(`arbor: ${error instanceof Error ? error.message : String(error)}\n`);
    exit(1);
  },
);
