// `node -r test/support/registerTypeScript.js test/support/serviceProcess.ts`: the real service
// (what `crondeck serve` starts) in a process of its own, with the local runtime's timings given
// as JSON in CRONDECK_TEST_LOCAL, so that a test can stall it (SIGSTOP) or kill it (SIGKILL) as a
// whole process, and not wait the production timings out. Logs go to stdout, one JSON per line.
import { readEnvironment } from '../../src/config/environment';
import { createLogger } from '../../src/logging/logger';
import type { LocalRuntimeSettings } from '../../src/runtime/createRuntime';
import { startService } from '../../src/service';
import { openDatabase } from '../../src/store/open';

async function main(): Promise<void> {
  const env = readEnvironment({ ...process.env, PORT: '0', HOST: '127.0.0.1' });
  const logger = createLogger({ level: 'info', write: (line) => process.stdout.write(`${line}\n`) });
  const local = JSON.parse(process.env.CRONDECK_TEST_LOCAL || '{}') as LocalRuntimeSettings;
  const db = await openDatabase(env, logger);
  const service = await startService({ env, db, logger, local });
  process.once('SIGTERM', () => {
    service.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`${String((error as Error)?.stack ?? error)}\n`);
  process.exit(1);
});
