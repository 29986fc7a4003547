import { readEnvironment, type Environment } from '../../src/config/environment';
import type { Clock } from '../../src/domain/clock';
import type { LocalRuntimeHooks } from '../../src/runtime/local/localRuntime';
import { type RunningService, type ServiceOptions, startService } from '../../src/service';
import type { Database } from '../../src/store/database';
import { createTestDatabase } from './database';
import { createMemoryLogger } from './memoryLogger';

export interface TestService extends RunningService {
  /** The local runtime's hooks: tests fire jobs with `local.tick()`. */
  local: LocalRuntimeHooks;
  logger: ReturnType<typeof createMemoryLogger>;
  /** `fetch` against the service, with JSON in and out. */
  request(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<TestResponse>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  // Tests read whatever shape the endpoint answers.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
}

/**
 * The real service on a free loopback port with a fresh database of its own. Real timers are off
 * by default (`autoTick: false`): tests fire jobs with `local.tick()`. Services started on one shared
 * `db` (a PostgreSQL server) elect one leader among them.
 */
export async function startTestService(
  options: {
    env?: Record<string, string>;
    clock?: Clock;
    local?: ServiceOptions['local'];
    declaredJobs?: ServiceOptions['declaredJobs'];
    alerting?: ServiceOptions['alerting'];
    wrapRuntime?: ServiceOptions['wrapRuntime'];
    /** A database to reuse (restart tests); it stays open when the service stops. */
    db?: Database;
  } = {},
): Promise<TestService> {
  const env: Environment = readEnvironment({ PORT: '0', HOST: '127.0.0.1', ...options.env });
  const logger = createMemoryLogger();
  const db = options.db ? { ...options.db, close: async () => undefined } : await createTestDatabase();
  const service = await startService({
    env,
    db,
    logger,
    clock: options.clock,
    declaredJobs: options.declaredJobs,
    alerting: options.alerting,
    wrapRuntime: options.wrapRuntime,
    local: { autoTick: false, shutdownGraceMs: 2000, leaderRetryMs: 200, ...options.local },
  });
  const request = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
    }
    const response = await fetch(service.url + path, init);
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Not JSON (metrics, the dashboard): tests read `text`.
    }
    return { status: response.status, headers: response.headers, body: parsed, text };
  };
  if (!service.local) throw new Error('the test service runs the local runtime');
  return { ...service, local: service.local, logger, request };
}

/** Polls `check` until it returns a truthy value, or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined | null | false>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
