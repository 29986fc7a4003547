import type { Execution, FailureReason } from '../domain/execution';
import type { Job } from '../domain/job';
import type { RunSlot } from '../domain/slots';
import type { ExecutionRecorder } from './executionRecorder';

/** A cluster run that ended without its pod's final report, as the controller saw its Job end. */
export interface UnreportedRun {
  /** The Kubernetes Job's UID. */
  runUid: string;
  /** `timeout` when the Job ran past its deadline, `failed` when it failed, `success` when it
   *  completed (the command succeeded, but its report was lost). */
  status: 'success' | 'failed' | 'timeout';
  startedAt: Date;
  finishedAt: Date;
  /** The attempt the run was at: one past the last one reported. */
  attempt: number;
  /** What Kubernetes said (the Job's condition), for stderr and as the execution's reason. */
  reason: FailureReason;
  /** The slot the run was for (its Job's annotations); null for a run started by hand. */
  slot?: RunSlot | null;
}

/**
 * What the controller records on its own, through the same recorder as every other execution: runs
 * whose pods never reported their outcome, and fire times the CronJob controller skipped. Both are
 * keyed so that a controller restart or a second replica records each once.
 */
export class ClusterRunRecorder {
  constructor(private readonly recorder: ExecutionRecorder) {}

  /**
   * Notes that the controller saw Kubernetes Job `runUid` labelled as job `jobId`'s: reports sent
   * with another job's token that name it are refused from then on.
   */
  registerRun(jobId: number, runUid: string): Promise<void> {
    return this.recorder.markRunSeen(runUid, jobId);
  }

  /**
   * Keeps what the controller saw of the run's pods (OOMKilled, Evicted, ImagePullBackOff...; null
   * when nothing is wrong with them; undefined when there is no pod to look at) for the run's final
   * execution, whether it is recorded already or not (`ExecutionRecorder.noteRunReason`). `endedBy`:
   * what ended the run when the pods say nothing (the Job's deadline).
   */
  noteRunReason(
    jobId: number,
    runUid: string,
    seen: FailureReason | null | undefined,
    runEnded: boolean,
    endedBy: FailureReason | null = null,
  ): Promise<Execution | null> {
    return this.recorder.noteRunReason(jobId, runUid, seen, runEnded, endedBy);
  }

  /** Records the run as Kubernetes saw it end; null when its pod's final report got there first. */
  recordUnreported(job: Job, run: UnreportedRun): Promise<Execution | null> {
    const reportKey = `run:${run.runUid}:unreported`;
    return this.recorder.recordFinished(
      job,
      {
        status: run.status,
        startedAt: run.startedAt,
        finishedAt: run.finishedAt,
        exitCode: -1,
        stdout: '',
        stderr: `[crondeck] the run ended without reporting its outcome: ${run.reason.code}: ${run.reason.message}\n`,
        attempt: run.attempt,
        // What the controller saw of the pods, kept on the run, takes the place of this.
        reason: run.reason,
        reportKey,
        slot: run.slot ?? null,
      },
      true,
      {
        runUid: run.runUid,
        jobId: job.id,
        by: 'controller',
        closes: true,
        reportKey,
        // A run closed already (by its pod's final report) is not recorded again. Whatever a
        // report sent with another job's token claimed, the controller knows the run's job.
        admit: ({ closedBefore }) => closedBefore === null,
      },
    );
  }

  /** Records a fire time that passed while the previous run was still active (DESIGN.md). */
  recordSkipped(job: Job, cronJobUid: string, fireTime: Date, now: Date): Promise<Execution | null> {
    return this.recorder.recordFinished(
      job,
      {
        status: 'skipped',
        startedAt: fireTime,
        finishedAt: now < fireTime ? fireTime : now,
        exitCode: -1,
        stdout: '',
        stderr: 'skipped: the previous run of this job was still in progress\n',
        attempt: 0,
        reportKey: `skip:${cronJobUid}:${fireTime.toISOString()}`,
        // A slot of the schedule (jobOutcome.ts reads the fire times by it): judged `skipped`.
        slot: { scheduledAt: fireTime, trigger: 'schedule' },
      },
      true,
    );
  }
}
