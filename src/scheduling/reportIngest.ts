import type { Pool } from 'pg';
import { type AttemptReport, reportKeyOf } from '../domain/attemptReport';
import { conflict, notFound } from '../domain/errors';
import type { Execution } from '../domain/execution';
import { closeClusterRunIfOpen, lockClusterRun } from '../store/clusterRuns';
import type { Queryable } from '../store/database';
import { findJob } from '../store/jobs';
import type { ExecutionRecorder } from './executionRecorder';

export type IngestOutcome = { recorded: Execution } | { duplicate: true };

/**
 * Records the attempts that pods report. Each goes through the same recorder as the local
 * runtime's attempts (row, counter and alert outbox in one transaction), keyed by pod and attempt
 * so that a report that arrives twice is stored, counted and alerted once.
 */
export class ReportIngest {
  constructor(
    private readonly pool: Pool,
    private readonly recorder: ExecutionRecorder,
  ) {}

  async record(jobId: number, report: AttemptReport): Promise<IngestOutcome> {
    const job = await findJob(this.pool, jobId);
    if (!job) throw notFound(`job ${jobId} not found`);
    const recorded = await this.recorder.recordFinished(
      job,
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
      report.runUid ? (tx) => this.admit(tx, jobId, report) : undefined,
    );
    return recorded ? { recorded } : { duplicate: true };
  }

  /**
   * A report of a cluster run is admitted while the run is open or closed by the pod's own final
   * report (a duplicate then changes nothing); once the controller has recorded the run as never
   * reported, a late report would count it twice, so it is refused.
   */
  private async admit(tx: Queryable, jobId: number, report: AttemptReport): Promise<boolean> {
    const runUid = report.runUid!;
    await lockClusterRun(tx, runUid);
    const closedBy = await closeClusterRunIfOpen(tx, { runUid, jobId, closedBy: 'report' }, report.final);
    if (closedBy === 'controller') {
      throw conflict(`run ${runUid} was already recorded by the controller: the report came too late`);
    }
    return true;
  }
}
