import { type AttemptReport, reportKeyOf } from '../domain/attemptReport';
import { conflict } from '../domain/errors';
import type { Execution } from '../domain/execution';
import type { ClusterRunClaim } from './clusterRunClaims';
import type { ExecutionRecorder } from './executionRecorder';

export type IngestOutcome = { recorded: Execution } | { duplicate: true };

/**
 * Records the attempts that pods report. Each goes through the same recorder as the local
 * runtime's attempts (row, counter and alert outbox in one transaction), keyed by pod and attempt
 * within the job (migration 012) so that a report that arrives twice is stored, counted and
 * alerted once, and a report sent with another job's token is never taken for it.
 */
export class ReportIngest {
  constructor(private readonly recorder: ExecutionRecorder) {}

  async record(jobId: number, report: AttemptReport): Promise<IngestOutcome> {
    const recorded = await this.recorder.recordReport(
      jobId,
      {
        status: report.status,
        startedAt: report.startedAt,
        finishedAt: report.finishedAt,
        exitCode: report.exitCode,
        stdout: report.stdout,
        stderr: report.stderr,
        reason: report.reason ?? null,
        attempt: report.attempt,
        reportKey: reportKeyOf(report),
        // The run's slot, as the runner claimed it (a scheduled run's, a catch-up's, a backfill's).
        slot: report.scheduledAt
          ? { scheduledAt: report.scheduledAt, trigger: report.trigger ?? 'schedule' }
          : null,
      },
      report.final,
      report.runUid ? reportClaim(jobId, report.runUid, report.final, reportKeyOf(report)) : undefined,
    );
    return recorded ? { recorded } : { duplicate: true };
  }
}

/**
 * A report of a cluster run is admitted while the run is open for its job, or closed by the pod's
 * own final report (a duplicate then changes nothing). It is refused when the controller saw the
 * run as another job's (a token holds for its own job's runs only), and once the controller has
 * recorded the run as never reported (a late report would count it twice).
 */
export function reportClaim(
  jobId: number,
  runUid: string,
  final: boolean,
  reportKey?: string,
): ClusterRunClaim {
  return {
    runUid,
    jobId,
    by: 'report',
    closes: final,
    reportKey,
    admit: ({ closedBefore, ownedByAnotherJob }) => {
      if (ownedByAnotherJob) throw conflict(`run ${runUid} is a run of another job, not of job ${jobId}`);
      if (closedBefore === 'controller') {
        throw conflict(`run ${runUid} was already recorded by the controller: the report came too late`);
      }
      return true;
    },
  };
}
