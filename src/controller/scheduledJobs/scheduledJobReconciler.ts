import type { ObjectCache, V1CronJob } from '@kubernetes/client-node';
import { createHash } from 'node:crypto';
import type { Pool } from 'pg';
import type { Clock } from '../../domain/clock';
import { effectiveTimeZone, type Job } from '../../domain/job';
import { reportTokenFor } from '../../domain/reportToken';
import type { Logger } from '../../logging/logger';
import { NextRunCache } from '../../scheduling/nextRunCache';
import { isPausedAt } from '../../domain/schedulerState';
import { isUniqueViolation } from '../../store/database';
import { deleteJobForResource, upsertJobForResource } from '../../store/resourceJobs';
import { saveJobInLedger } from '../../store/slots';
import { readSchedulerStateAfterChanges } from '../../store/scheduler';
import { apiMessage, statusOf } from '../../kube/apiErrors';
import type { ClusterClient } from '../../kube/clusterClient';
import type { EventRecorder } from '../events';
import { cronJobNameFor } from '../../kube/cronJobName';
import { LABEL_JOB_ID } from '../../kube/labels';
import type { ScheduledJob } from '../../kube/resources/scheduledJob';
import { jobInputOfScheduledJob } from './jobInput';
import { desiredStatus, type ObservedJob, type Readiness, statusDiffers } from './status';
import { findLastFailure } from '../../store/executions';
import { lastFailureOf } from '../../domain/failureReasons';
import type { TokenSecrets } from './tokenSecrets';
import { type OwnSecrets, ownSecretReference } from './ownSecrets';

/** Held on every ScheduledJob so that its job's rows go when it goes. */
export const CLEANUP_FINALIZER = 'crondeck.dev/cleanup';

/** The pure functions that say what the cluster should hold for a ScheduledJob (desired/). */
export interface DesiredObjects {
  cronJob(
    resource: ScheduledJob,
    context: { jobId: number; jobName: string; paused: boolean; suspended: boolean },
  ): V1CronJob;
  cronJobNeedsUpdate(desired: V1CronJob, actual: V1CronJob): boolean;
}

export interface ScheduledJobReconcilerDeps {
  pool: Pool;
  cluster: ClusterClient;
  caches: {
    scheduledJobs: ObjectCache<ScheduledJob>;
    cronJobs: ObjectCache<V1CronJob>;
  };
  /** The report tokens' keys in the namespaces' shared Secrets, written in batches. */
  tokens: TokenSecrets;
  desired: DesiredObjects;
  events: EventRecorder;
  /** Secret behind the per-job report tokens, shared with the service. */
  reportSecret: string;
  /** The namespace whose jobs keep unqualified API names (the service's own). */
  homeNamespace: string;
  /** Secrets no job's env may name: Crondeck's own, in its namespace. */
  ownSecrets: OwnSecrets;
  defaultTimeZone: string;
  clock: Clock;
  logger: Logger;
  /** Alert destinations of the job (its shortcuts and AlertConfigs), kept in the database. */
  syncAlerts?: (resource: ScheduledJob, job: Job) => Promise<void>;
}

export interface ReconcileResult {
  /** Reconcile again after this long even if nothing changes (to refresh nextRun/lastRun). */
  requeueAfterMs?: number;
}

/** Longest wait before a ScheduledJob's status is refreshed, whatever its schedule. */
const MAX_REQUEUE_MS = 60 * 60_000;
/** After a fire time, when the run has likely been recorded and lastRun/lastStatus can be shown. */
const AFTER_FIRE_MS = 30_000;
/** How often a ScheduledJob whose CronJob name another object holds looks whether it is free. */
const NAME_TAKEN_RETRY_MS = 60_000;

/**
 * Makes the cluster and the database hold what one ScheduledJob says, idempotently: whatever state
 * it starts from, the same resource leads to the same writes, and a second pass writes nothing.
 * 1. deleted → remove the job's rows and its token's key, then the finalizer (the CronJob goes
 *    with its owner);
 * 2. the finalizer, so that 1 happens;
 * 3. the job row (same id across edits and restarts; a spec the domain refuses gets Ready=False);
 * 4. the report token's key: when it is not in place, it is asked for and the reconcile ends here
 *    (the batch that writes it reconciles the resource again), so Ready means a run can start;
 * 5. the CronJob, written only when it differs;
 * 6. the status (jobId, runs, Ready), written only when it differs.
 * A new ScheduledJob so costs three writes of its own: the finalizer, the CronJob and the status.
 */
export class ScheduledJobReconciler {
  private readonly nextRuns = new NextRunCache();
  /**
   * The status last written for each resource, with the resourceVersion it was computed from. The
   * watch brings our own write back a moment later; a reconcile of the same version in between
   * (an event of the CronJob or Secret just created) would otherwise write the same status again.
   */
  private readonly statusWritten = new Map<string, string>();
  /** Deleted resources (by uid) whose token key is being removed: the job they had. */
  private readonly releasing = new Map<string, number>();

  constructor(private readonly deps: ScheduledJobReconcilerDeps) {}

  async reconcile(namespace: string, name: string): Promise<ReconcileResult> {
    const resource = this.deps.caches.scheduledJobs.get(name, namespace);
    if (!resource) return {};
    if (resource.metadata.deletionTimestamp) {
      await this.finalize(resource);
      return {};
    }
    const finalizers = resource.metadata.finalizers ?? [];
    if (!finalizers.includes(CLEANUP_FINALIZER)) {
      // The update this makes comes back through the watch and reconciles the rest.
      await this.deps.cluster.patchScheduledJob(namespace, name, {
        metadata: {
          finalizers: [...finalizers, CLEANUP_FINALIZER],
          resourceVersion: resource.metadata.resourceVersion,
        },
      });
      return {};
    }

    // The CronJob as this pass finds it, taken before the database is read: what the pass writes
    // is built from the job's row and the scheduler's state as read next, and is written only over
    // this version. A writer that changes the database and then the CronJob (the alert policy's
    // suspension) changes it after this version if this pass's reads missed its change: the replace
    // is then refused (409) and the next pass reads it, instead of undoing it. (A pause patches the
    // CronJobs before it commits: the read of the scheduler's state waits for it.)
    const cronJobSeen = this.deps.caches.cronJobs.get(cronJobNameFor(name), namespace);
    const outcome = jobInputOfScheduledJob(resource, this.deps.homeNamespace);
    if (!outcome.ok) {
      await this.refuse(resource, 'InvalidSpec', outcome.message);
      return {};
    }
    const secretRefused = ownSecretReference(resource, this.deps.ownSecrets);
    if (secretRefused) {
      await this.refuse(resource, 'InvalidSpec', secretRefused);
      return {};
    }
    let job: Job;
    try {
      job = (
        await upsertJobForResource(
          this.deps.pool,
          { namespace, name, uid: resource.metadata.uid ?? '', generation: resource.metadata.generation },
          outcome.input,
          adoptedId(resource),
        )
      ).job;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      await this.refuse(
        resource,
        'NameConflict',
        `another job is already named "${outcome.input.name}"; rename this ScheduledJob or that job`,
      );
      return {};
    }

    // The slot ledger's cursor and hold follow the resource (a resync that changes nothing writes nothing).
    await saveJobInLedger(this.deps.pool, job, this.deps.clock.now());

    const token = reportTokenFor(this.deps.reportSecret, job.id);
    if (!this.deps.tokens.inPlace(namespace, job.id, token)) {
      this.deps.tokens.request(namespace, job.id, token, { namespace, name });
      return {};
    }
    const now = this.deps.clock.now();
    const scheduler = await readSchedulerStateAfterChanges(this.deps.pool);
    const paused = isPausedAt(scheduler, now);
    const cronJob = await this.ensureCronJob(resource, job, paused, cronJobSeen);
    // The CronJob changed since this pass took it: the change's watch event brings the next pass.
    if (cronJob === 'changed meanwhile') return {};
    if (cronJob === 'name taken') return { requeueAfterMs: NAME_TAKEN_RETRY_MS };
    await this.deps.syncAlerts?.(resource, job);

    const nextRun =
      job.enabled && !paused
        ? this.nextRuns.nextAfter(job.schedule, effectiveTimeZone(job, this.deps.defaultTimeZone), now)
        : null;
    const lastFailure = await findLastFailure(this.deps.pool, job.id);
    const observed: ObservedJob = {
      jobId: job.id,
      nextRun,
      lastRun: job.lastRun,
      lastStatus: job.lastStatus as ObservedJob['lastStatus'],
      suspendedReason: job.suspendedReason,
      lastFailure: lastFailure ? lastFailureOf(lastFailure) : null,
    };
    const message = paused
      ? 'the CronJob is in place; the scheduler is paused'
      : `the CronJob is in place${job.enabled ? '' : ' and suspended'}`;
    await this.tellSuspension(resource, job);
    await this.writeStatus(resource, observed, { ready: true, reason: 'Reconciled', message });
    // Back after the next fire (to show the next nextRun), or when a pause with `until` ends: in a
    // cluster nothing else resumes the CronJobs then.
    const untilNext = nextRun ? nextRun.getTime() - now.getTime() + AFTER_FIRE_MS : MAX_REQUEUE_MS;
    const untilResume = paused && scheduler.until ? scheduler.until.getTime() - now.getTime() : Infinity;
    return { requeueAfterMs: Math.min(MAX_REQUEUE_MS, Math.max(1000, Math.min(untilNext, untilResume))) };
  }

  private async finalize(resource: ScheduledJob): Promise<void> {
    const { namespace = '', name = '', finalizers = [], uid = '' } = resource.metadata;
    if (!finalizers.includes(CLEANUP_FINALIZER)) return;
    const deletedId = await deleteJobForResource(this.deps.pool, namespace, name);
    // The status names the job too, and so does the pass that deleted the row: a finalize cut
    // short after the row went, or waiting for its key's removal, still frees the key.
    const jobId = deletedId ?? resource.status?.jobId ?? this.releasing.get(uid) ?? null;
    if (jobId !== null && !this.deps.tokens.release(namespace, jobId, { namespace, name })) {
      // The batch that removes the key reconciles this resource again; the finalizer goes then.
      this.releasing.set(uid, jobId);
      return;
    }
    this.releasing.delete(uid);
    try {
      await this.deps.cluster.patchScheduledJob(namespace, name, {
        metadata: {
          finalizers: finalizers.filter((finalizer) => finalizer !== CLEANUP_FINALIZER),
          resourceVersion: resource.metadata.resourceVersion,
        },
      });
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
    }
    this.deps.events.forget(resource.metadata.uid);
    this.statusWritten.delete(resource.metadata.uid ?? '');
  }

  private async ensureCronJob(
    resource: ScheduledJob,
    job: Job,
    paused: boolean,
    actual: V1CronJob | undefined,
  ): Promise<'in place' | 'changed meanwhile' | 'name taken'> {
    const desired = this.deps.desired.cronJob(resource, {
      jobId: job.id,
      jobName: job.name,
      paused,
      suspended: job.suspendedReason !== null,
    });
    const { namespace = '', name = '' } = desired.metadata ?? {};
    if (!actual) {
      try {
        await this.deps.cluster.createCronJob(namespace, desired);
      } catch (error) {
        if (statusOf(error) === 409) return this.nameTaken(resource, namespace, name);
        if (statusOf(error) === 422) {
          await this.refuse(resource, 'ClusterRefused', `the CronJob was refused: ${apiMessage(error)}`);
        }
        throw error;
      }
      // No Event: a new CronJob is routine, and the Ready condition says so.
      return 'in place';
    }
    if (!this.deps.desired.cronJobNeedsUpdate(desired, actual)) return 'in place';
    try {
      await this.deps.cluster.replaceCronJob(namespace, name, {
        ...desired,
        metadata: { ...desired.metadata, resourceVersion: actual.metadata?.resourceVersion },
      });
    } catch (error) {
      if (statusOf(error) === 409) return 'changed meanwhile';
      throw error;
    }
    await this.deps.events.record(
      resource,
      'Normal',
      'CronJobUpdated',
      `brought CronJob ${name} in line with the spec`,
    );
    return 'in place';
  }

  /**
   * The CronJob's name was taken when this pass created it. Usually by its own CronJob, made a
   * moment ago and not yet in the cache (the cache holds only CronJobs labelled as Crondeck's): its
   * watch event brings the next pass. But a CronJob of the same name that is not this ScheduledJob's
   * (the plain CronJob a ScheduledJob replaces, say) never comes through that watch: the resource
   * says so, and is looked at again each minute, until the name is free.
   */
  private async nameTaken(
    resource: ScheduledJob,
    namespace: string,
    name: string,
  ): Promise<'changed meanwhile' | 'name taken'> {
    const found = await this.deps.cluster.readCronJob(namespace, name).catch((error: unknown) => {
      if (statusOf(error) === 404) return null;
      throw error;
    });
    const owner = found?.metadata?.ownerReferences?.find((reference) => reference.controller);
    if (!found || owner?.uid === resource.metadata.uid) return 'changed meanwhile';
    const holder = owner ? `${owner.kind} ${owner.name}'s` : 'not made by Crondeck';
    await this.refuse(
      resource,
      'NameConflict',
      `a CronJob named ${name} already exists in namespace ${namespace} (${holder}); ` +
        'delete it, or rename this ScheduledJob',
    );
    return 'name taken';
  }

  /**
   * An Event when the job's alert policy suspends it, or it is resumed: once per change, as the
   * Suspended condition of the status (written next) changes. The condition is what later passes
   * compare with, so a restarted controller does not say it again.
   */
  private async tellSuspension(resource: ScheduledJob, job: Job): Promise<void> {
    const shown = resource.status?.conditions?.find((condition) => condition.type === 'Suspended');
    const suspended = job.suspendedReason !== null;
    if (suspended && shown?.status !== 'True') {
      await this.deps.events.record(resource, 'Warning', 'Suspended', job.suspendedReason!);
    } else if (!suspended && shown?.status === 'True') {
      await this.deps.events.record(resource, 'Normal', 'Resumed', 'the job runs on its schedule again');
    }
  }

  private async refuse(resource: ScheduledJob, reason: string, message: string): Promise<void> {
    await this.deps.events.record(resource, 'Warning', reason, message);
    const previous = resource.status ?? {};
    const suspendedShown = previous.conditions?.find((condition) => condition.type === 'Suspended');
    await this.writeStatus(
      resource,
      {
        jobId: previous.jobId ?? null,
        nextRun: null,
        lastRun: previous.lastRun ? new Date(previous.lastRun) : null,
        lastStatus: previous.lastStatus ?? null,
        // The job's row is not read here: a suspension shown stays shown.
        suspendedReason: suspendedShown?.status === 'True' ? (suspendedShown.message ?? '') : null,
        lastFailure:
          previous.lastFailureTime && previous.lastFailureReason
            ? {
                at: new Date(previous.lastFailureTime),
                reason: { code: previous.lastFailureReason, message: previous.lastFailureMessage ?? '' },
              }
            : null,
      },
      { ready: false, reason, message },
    );
  }

  private async writeStatus(
    resource: ScheduledJob,
    observed: ObservedJob,
    readiness: Readiness,
  ): Promise<void> {
    const desired = desiredStatus(resource, observed, readiness, this.deps.clock.now());
    if (!statusDiffers(resource.status, desired)) return;
    const uid = resource.metadata.uid ?? '';
    // A digest, not the text: the memo is kept for every resource (5,000 statuses of ~300 bytes).
    const written = createHash('sha1')
      .update(`${resource.metadata.resourceVersion}/${JSON.stringify(desired)}`)
      .digest('base64');
    if (this.statusWritten.get(uid) === written) return;
    // A merge patch: keys the desired status no longer has are removed with null.
    const patch: Record<string, unknown> = { ...desired };
    for (const key of Object.keys(resource.status ?? {})) if (!(key in desired)) patch[key] = null;
    await this.deps.cluster.patchScheduledJobStatus(
      resource.metadata.namespace ?? '',
      resource.metadata.name ?? '',
      patch,
    );
    this.statusWritten.set(uid, written);
  }
}

function adoptedId(resource: ScheduledJob): number | null {
  const value = Number(resource.metadata.labels?.[LABEL_JOB_ID]);
  return Number.isInteger(value) && value > 0 ? value : null;
}
