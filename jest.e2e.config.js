/** `npm run test:e2e`: only the e2e suite, against the cluster of KUBECONFIG (docs/e2e.md). */
const base = require('./jest.config.js');

module.exports = {
  ...base,
  testMatch: ['**/test/e2e/*.e2e.ts'],
  // The suite brings its own PostgreSQL database: no PGlite snapshot to prepare.
  globalSetup: undefined,
  globalTeardown: undefined,
  testTimeout: 180000,
};
