import type { Pool } from 'pg';
import { type AttemptReport, reportKeyOf } from '../domain/attemptReport';
import { notFound } from '../domain/errors';
import type { Execution } from '../domain/execution';
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
    );
    return recorded ? { recorded } : { duplicate: true };
  }
}
