import { schedulerSchema } from './001_scheduler';
import { mailboxSchema } from './002_mailbox';
import { alertsSchema } from './003_alerts';
import { listVersionsSchema } from './004_list_versions';
import { labelChunkDatesSchema } from './005_label_chunk_dates';
import { runningRunsSchema } from './006_running_runs';
import { runtimeSyncSchema } from './007_runtime_sync';
import { kubernetesSchema } from './008_kubernetes';
import { spreadHotRowsSchema } from './009_spread_hot_rows';
import { jobDefinitionsVersionSchema } from './010_job_definitions_version';
import { claimClusterRunsSchema } from './011_claim_cluster_runs';
import { jobScopedReportsSchema } from './012_job_scoped_reports';
import { serviceProcessesSchema } from './013_service_processes';
import { alertPolicySchema } from './014_alert_policy';
import { signedWebhooksSchema } from './015_signed_webhooks';
import { failureReasonsSchema } from './016_failure_reasons';
import { slotLedgerSchema } from './017_slot_ledger';
import { slotPagesVersionSchema } from './018_slot_pages_version';
import { slotJobLocksSchema } from './019_slot_job_locks';
import { clusterRunClaimsPlannedPerCallSchema } from './020_cluster_run_claims_planned_per_call';
import { plansKeptPerConnectionSchema } from './021_plans_kept_per_connection';
import { listVersionNotificationsSchema } from './022_list_version_notifications';
import { oneRunClaimPerJobSchema } from './023_one_run_claim_per_job';
import { slotStretchesSchema } from './024_slot_stretches';
import { callersSchema } from './025_callers';
import { mirroredGenerationSchema } from './026_mirrored_generation';
import { runsCompleteInferredSkipsSchema } from './027_runs_complete_inferred_skips';
import { backfillJobsByCallerSchema } from './028_backfill_jobs_by_caller';
import { watchedCronJobsSchema } from './029_watched_cron_jobs';
import { watchedBackfillSchema } from './030_watched_backfill';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * Every migration, in order. A migration is never edited once released: add a new one instead.
 * Rooms own their numbers: 001 scheduler, 002 mailbox, 003 alerts; later ones in order of arrival.
 */
export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'scheduler', sql: schedulerSchema },
  { version: 2, name: 'mailbox', sql: mailboxSchema },
  { version: 3, name: 'alerts', sql: alertsSchema },
  { version: 4, name: 'list versions', sql: listVersionsSchema },
  { version: 5, name: 'label chunk dates', sql: labelChunkDatesSchema },
  { version: 6, name: 'running runs', sql: runningRunsSchema },
  { version: 7, name: 'runtime sync', sql: runtimeSyncSchema },
  { version: 8, name: 'kubernetes', sql: kubernetesSchema },
  { version: 9, name: 'spread hot rows', sql: spreadHotRowsSchema },
  { version: 10, name: 'job definitions version', sql: jobDefinitionsVersionSchema },
  { version: 11, name: 'claim cluster runs', sql: claimClusterRunsSchema },
  { version: 12, name: 'job scoped reports', sql: jobScopedReportsSchema },
  { version: 13, name: 'service processes', sql: serviceProcessesSchema },
  { version: 14, name: 'alert policy', sql: alertPolicySchema },
  { version: 15, name: 'signed webhooks', sql: signedWebhooksSchema },
  { version: 16, name: 'failure reasons', sql: failureReasonsSchema },
  { version: 17, name: 'slot ledger', sql: slotLedgerSchema },
  { version: 18, name: 'slot pages version', sql: slotPagesVersionSchema },
  { version: 19, name: 'slot job locks', sql: slotJobLocksSchema },
  { version: 20, name: 'cluster run claims planned per call', sql: clusterRunClaimsPlannedPerCallSchema },
  { version: 21, name: 'plans kept per connection', sql: plansKeptPerConnectionSchema },
  { version: 22, name: 'list version notifications', sql: listVersionNotificationsSchema },
  { version: 23, name: 'one run claim per job', sql: oneRunClaimPerJobSchema },
  { version: 24, name: 'slot stretches', sql: slotStretchesSchema },
  { version: 25, name: 'callers', sql: callersSchema },
  { version: 26, name: 'mirrored generation', sql: mirroredGenerationSchema },
  { version: 27, name: 'runs complete inferred skips', sql: runsCompleteInferredSkipsSchema },
  { version: 28, name: 'backfill jobs by caller', sql: backfillJobsByCallerSchema },
  { version: 29, name: 'watched cron jobs', sql: watchedCronJobsSchema },
  { version: 30, name: 'watched backfill', sql: watchedBackfillSchema },
];
