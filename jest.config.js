// One config, two projects: the default suite (`npm test`) and the EventStoreDB contract run
// (`npm run test:esdb`), which is only meaningful with EVENTSTORE_CONNECTION_STRING set.
const { compilerOptions } = require('./tsconfig.base.json');

const moduleNameMapper = {};
for (const [alias, [target]] of Object.entries(compilerOptions.paths)) {
  const key = '^' + alias.replace('/*', '/(.*)') + '$';
  moduleNameMapper[key] = '<rootDir>/' + target.replace('/*', '/$1');
}

const transform = {
  '^.+\\.ts$': [
    '@swc/jest',
    {
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true },
        target: 'es2022',
      },
      module: { type: 'commonjs' },
    },
  ],
};

// A few dependencies ship ESM only (Node 20.19 loads them natively, jest does not): compile them.
const ESM_DEPS = ['content-disposition', '@noble/ciphers', '@anthropic-ai/claude-agent-sdk'];
transform['^.+\\.m?js$'] = [
  '@swc/jest',
  { jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' } },
];
const transformIgnorePatterns = [`/node_modules/(?!(${ESM_DEPS.join('|')})/)`];

const common = {
  rootDir: __dirname,
  transform,
  transformIgnorePatterns,
  moduleNameMapper,
  testEnvironment: 'node',
};

/** The scaled shape's suites (replicas, workers, Redis): also under `npm run test:esdb`. */
const SCALED_SUITES = [
  '<rootDir>/test/scaled.e2e-spec.ts',
  '<rootDir>/test/scaled-routes.e2e-spec.ts',
  '<rootDir>/test/redis-read-models.e2e-spec.ts',
  '<rootDir>/libs/projections/src/redis/*.redis.spec.ts',
];

module.exports = {
  // Generous: CI machines have 2 cores and property tests open real SQLite files.
  testTimeout: 60_000,
  // Two workers even on 2 cores: most e2e suites wait on processes they spawn (servers, CLIs,
  // Redis, Chromium), so one worker per core minus one (jest's default: 1 here) left a core idle.
  maxWorkers: 2,
  // Suites run in a worker that is replaced once it holds more than this after a test file. On a
  // 2-core machine Jest would otherwise run every suite in its own process (one worker = in
  // band), where what the ~210 suites leave behind (native handles, module caches of spawned
  // tools) added up to V8's 4 GB heap limit 670 s into a clean-clone run, which then aborted.
  workerIdleMemoryLimit: '1536MB',
  testSequencer: '<rootDir>/test/support/long-first-sequencer.js',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  projects: [
    {
      ...common,
      displayName: 'default',
      testMatch: [
        '<rootDir>/apps/**/*.spec.ts',
        '<rootDir>/libs/**/*.spec.ts',
        '<rootDir>/packages/**/*.spec.ts',
        '<rootDir>/test/**/*.e2e-spec.ts',
      ],
      testPathIgnorePatterns: ['/node_modules/', '/dist/', '\\.esdb\\.spec\\.ts$'],
    },
    {
      ...common,
      displayName: 'esdb',
      // With an EventStoreDB to talk to, the scaled suites run too: their replicas and workers
      // inherit EVENTSTORE_CONNECTION_STRING, so the shared log is that EventStoreDB.
      testMatch: [
        '<rootDir>/libs/**/*.esdb.spec.ts',
        ...(process.env.EVENTSTORE_CONNECTION_STRING ? SCALED_SUITES : []),
      ],
    },
  ],
};
