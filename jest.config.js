/** Jest runs TypeScript through swc; tsc type-checks separately (npm run typecheck). */
const { spawnSync } = require('node:child_process');
const { availableParallelism } = require('node:os');

// PGlite (the embedded database) loads with a dynamic import, which Jest's VM sandbox serves only
// when Node runs with --experimental-vm-modules. `npm test` sets it; a bare `npx jest <file>` (what
// editors and contributors run) would fail every database test with
// ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING_FLAG, so Jest started without it starts itself again with it.
const nodeFlags = `${process.env.NODE_OPTIONS ?? ''} ${process.execArgv.join(' ')}`;
const startedByJest = /jest(\.js)?$/.test(process.argv[1] ?? '');
if (startedByJest && !nodeFlags.includes('--experimental-vm-modules')) {
  const flags = ['--experimental-vm-modules', '--disable-warning=ExperimentalWarning'];
  const { status } = spawnSync(process.execPath, [...flags, ...process.argv.slice(1)], {
    stdio: 'inherit',
  });
  process.exit(status ?? 1);
}

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  // These dependencies ship ESM only; swc turns them into CommonJS for Jest.
  transformIgnorePatterns: ['/node_modules/(?!(@kubernetes/client-node|openid-client|oauth4webapi|jose)/)'],
  globalSetup: '<rootDir>/test/support/globalSetup.ts',
  globalTeardown: '<rootDir>/test/support/globalTeardown.ts',
  testTimeout: 30000,
  // Jest's default is one worker fewer than the cores: on CI's two cores that is one, which runs
  // the files one after another in Jest's own process, and most of the suite's time is spent
  // waiting (child processes, the browser, timers, the database), not computing. Two workers there
  // took the PGlite pass from 883 s to about 450 s. Larger machines keep Jest's default.
  maxWorkers: Math.max(2, availableParallelism() - 1),
};
