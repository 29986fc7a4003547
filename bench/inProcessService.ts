/**
 * The service in the bench's own process, for the scenarios that measure scheduling and recording
 * through its seams (an attempt runner that returns at once, a clock, hooks) rather than over HTTP.
 */
import type { CommandResult } from '../src/runner/runCommand';
import type { ServiceOptions } from '../src/service';
import { fromBuild } from './harness';

const { readEnvironment } = fromBuild<typeof import('../src/config/environment')>('config/environment');
const { createLogger } = fromBuild<typeof import('../src/logging/logger')>('logging/logger');
// The build that `node dist/cli.js serve` runs, not a second compilation.
const { startService } = fromBuild<typeof import('../src/service')>('service');
const { connectToServer } = fromBuild<typeof import('../src/store/database')>('store/database');

/** A command that succeeds the moment it starts: the machine spends the bench on Crondeck, not on processes. */
export function instantCommand(stdout = ''): () => Promise<CommandResult> {
  return async () => {
    const now = new Date();
    return { status: 'success', exitCode: 0, stdout, stderr: '', startedAt: now, finishedAt: now };
  };
}

/** `startService` on `databaseUrl`, on a free loopback port, logging errors only; `options` adds seams. */
export function startInProcessService(
  databaseUrl: string,
  options: Omit<ServiceOptions, 'env' | 'db' | 'logger'> = {},
): ReturnType<typeof startService> {
  return startService({
    env: readEnvironment({
      DATABASE_URL: databaseUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      SERVICE_LOG_LEVEL: 'error',
    }),
    db: connectToServer(databaseUrl),
    logger: createLogger({ level: 'error' }),
    ...options,
  });
}
