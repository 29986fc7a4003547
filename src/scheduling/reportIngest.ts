import { type AttemptReport, reportKeyOf } from '../domain/attemptReport';
import { conflict } from '../domain/errors';
import type { Execution } from '../domain/execution';
import type { ClusterRunClaim } from './clusterRunClaims';
import type { ExecutionRecorder } from './executionRecorder';

export type IngestOutcome = { recorded: Execution } | { duplicate: true };

/**
 * Records the attempts that pods report. Each goes through the same recorder as the local
 * runtime's attempts (row, counter and alert outbox in one transaction), keyed by pod and attempt
 * so that a report that arrives twice is stored, counted and alerted once.
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
        attempt: report.attempt,
        reportKey: reportKeyOf(report),
      },
      report.final,
      report.runUid ? reportClaim(jobId, report.runUid, report.final) : undefined,
    );
    return recorded ? { recorded } : { duplicate: true };
  }
}

/**
 * A report of a cluster run is admitted while the run is open or closed by the pod's own final
 * report (a duplicate then changes nothing); once the controller has recorded the run as never
 * reported, a late report would count it twice, so it is refused.
 */
export function reportClaim(jobId: number, runUid: string, final: boolean): ClusterRunClaim {
  return {
    runUid,
    jobId,
    by: 'report',
    closes: final,
    admit: (closedBefore) => {
      if (closedBefore === 'controller') {
        throw conflict(`run ${runUid} was already recorded by the controller: the report came too late`);
      }
      return true;
    },
  };
}
