import type { Clock } from '../domain/clock';
import type { Logger } from '../logging/logger';
import type { ExecutionRecorder } from '../scheduling/executionRecorder';
import type { Database } from '../store/database';
import { AdvisoryLockLeadership, soleLeadership } from './local/leadership';
import { LocalRuntime, type LocalRuntimeHooks, type LocalRuntimeOptions } from './local/localRuntime';
import { poolRuntimeStore } from './local/localRuntimeStore';
import type { Runtime, RuntimeKind } from './runtime';

/** Tuning and test seams of the local runtime. */
export type LocalRuntimeSettings = Pick<
  LocalRuntimeOptions,
  'execute' | 'sleep' | 'autoTick' | 'shutdownGraceMs' | 'syncIntervalMs'
> & {
  /** How often a process that does not lead tries to take over (on a PostgreSQL server). */
  leaderRetryMs?: number;
};

export interface RuntimeDeps {
  db: Database;
  recorder: ExecutionRecorder;
  clock: Clock;
  logger: Logger;
  defaultTimeZone: string;
}

export interface CreatedRuntime {
  runtime: Runtime;
  /** The local runtime's hooks when it is the one chosen (tests, diagnostics). */
  local: LocalRuntimeHooks | null;
}

/** The one place where the runtime is chosen. */
export function createRuntime(
  kind: RuntimeKind,
  deps: RuntimeDeps,
  settings: LocalRuntimeSettings = {},
): CreatedRuntime {
  switch (kind) {
    case 'local': {
      const { leaderRetryMs, ...local } = settings;
      const openSession = deps.db.openSession;
      const leadership = openSession
        ? new AdvisoryLockLeadership({ openSession, logger: deps.logger, retryMs: leaderRetryMs })
        : soleLeadership();
      const runtime = new LocalRuntime({
        recorder: deps.recorder,
        store: poolRuntimeStore(deps.db.pool),
        leadership,
        clock: deps.clock,
        logger: deps.logger,
        defaultTimeZone: deps.defaultTimeZone,
        // Other processes can share a server's database only: then the leader looks for their writes.
        syncIntervalMs: openSession ? 1000 : null,
        ...local,
      });
      return { runtime, local: runtime };
    }
  }
}
