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

/**
 * The slow tier (`npm run test:slow`; `npm run test:all` is both tiers, what `.ci/run` runs): the
 * suites that take about 9 s or more on a 2-core machine, nearly all because they spawn what they
 * test (replicas, Redis Clusters, Chromium, the CLI, tarballs installed into empty folders, killed
 * processes) or walk every real fixture. `npm test` runs everything else in under 5 minutes.
 */
const SLOW_SUITES = [
  'test/scaled-wire.e2e-spec.ts',
  'test/tree-model.e2e-spec.ts',
  'test/erasure-scaled.e2e-spec.ts',
  'test/console.e2e-spec.ts',
  'test/cli.e2e-spec.ts',
  'test/bin.e2e-spec.ts',
  'test/scaled.e2e-spec.ts',
  'test/cluster.e2e-spec.ts',
  'test/scaled-routes.e2e-spec.ts',
  'test/verify.e2e-spec.ts',
  'test/disk-full.e2e-spec.ts',
  'test/hostile-fuzz.e2e-spec.ts',
  'test/fixtures-audit.e2e-spec.ts',
  'test/scaled-ops.e2e-spec.ts',
  'test/edges.e2e-spec.ts',
  'test/erasure.e2e-spec.ts',
  'test/http-hardening.e2e-spec.ts',
  'test/process-restart.e2e-spec.ts',
  'test/context-summary.e2e-spec.ts',
  'test/context-heavy.e2e-spec.ts',
  'test/export-stream.e2e-spec.ts',
  'test/context-window.e2e-spec.ts',
  'test/replay.e2e-spec.ts',
  'test/drafts-restart.e2e-spec.ts',
  'test/idempotency-processes.e2e-spec.ts',
  'test/rate-limit-flood.e2e-spec.ts',
  'test/failures-restart.e2e-spec.ts',
  'test/data-v1.e2e-spec.ts',
  'test/rate-limits.e2e-spec.ts',
  'test/cli-terminal.e2e-spec.ts',
  'test/storage-faults.e2e-spec.ts',
  'test/erasure-fields.e2e-spec.ts',
  'packages/claude-agent-sdk/test/pack.spec.ts',
  'packages/openai-agents/test/pack.spec.ts',
  'packages/langgraph/test/pack.spec.ts',
  'packages/ai-sdk/test/pack.spec.ts',
  'packages/client/test/rate-limit.spec.ts',
  'libs/context/src/ladder/fixtures.real.spec.ts',
  'libs/snapshots/src/render.spec.ts',
].map((file) => `<rootDir>/${file}`);

const ALL_SUITES = [
  '<rootDir>/apps/**/*.spec.ts',
  '<rootDir>/libs/**/*.spec.ts',
  '<rootDir>/packages/**/*.spec.ts',
  '<rootDir>/test/**/*.e2e-spec.ts',
];
const IGNORED = ['/node_modules/', '/dist/', '\\.esdb\\.spec\\.ts$'];
const escape = (file) => file.replace('<rootDir>', '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

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
      testMatch: ALL_SUITES,
      testPathIgnorePatterns: [...IGNORED, ...SLOW_SUITES.map((file) => `${escape(file)}$`)],
    },
    {
      ...common,
      displayName: 'slow',
      testMatch: SLOW_SUITES,
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
