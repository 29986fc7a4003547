/**
 * docs/development.md tells contributors to run one file with `npm test -- <file>`; editors and
 * habit run `npx jest <file>`, which lacks the Node flag PGlite needs inside Jest. Both must work.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const JEST_BIN = path.join(REPO_ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
/** A small file whose every test opens the database (PGlite without DATABASE_URL). */
const DATABASE_TEST_FILE = 'test/integration/jobFieldNames.test.ts';

describe('running one test file', () => {
  it('works through a bare `npx jest <file>`, without the flag npm test sets', async () => {
    const { NODE_OPTIONS: _withoutFlags, JEST_WORKER_ID: _notAWorker, ...environment } = process.env;
    const run = await promisify(execFile)(process.execPath, [JEST_BIN, DATABASE_TEST_FILE], {
      cwd: REPO_ROOT,
      env: environment,
      timeout: 120_000,
    });
    // Jest reports on stderr.
    expect(run.stderr).toMatch(/Tests:\s+\d+ passed, \d+ total/);
    expect(run.stderr).not.toContain('ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING_FLAG');
  });
});
