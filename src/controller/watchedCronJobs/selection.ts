import type { V1CronJob } from '@kubernetes/client-node';
import { LABEL_MANAGED_BY, MANAGED_BY_CRONDECK } from '../../kube/labels';
import type { CronJobWatch } from '../../kube/resources/cronJobWatch';

type LabelSelector = NonNullable<CronJobWatch['spec']['selector']>;

/** Whether `labels` satisfy a LabelSelector, as the API server reads one (every requirement holds). */
export function selectorMatches(selector: LabelSelector, labels: Record<string, string>): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[key] !== value) return false;
  }
  for (const { key, operator, values = [] } of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, key);
    if (operator === 'Exists' && !has) return false;
    if (operator === 'DoesNotExist' && has) return false;
    if (operator === 'In' && !(has && values.includes(labels[key]!))) return false;
    if (operator === 'NotIn' && has && values.includes(labels[key]!)) return false;
  }
  return true;
}

/**
 * A ScheduledJob's own CronJob, which Crondeck records already: never watched a second time. It
 * carries Crondeck's managed-by label and the ScheduledJob as its owner; either says so.
 */
function isCrondecksOwn(cronJob: V1CronJob): boolean {
  return (
    cronJob.metadata?.labels?.[LABEL_MANAGED_BY] === MANAGED_BY_CRONDECK ||
    (cronJob.metadata?.ownerReferences ?? []).some((owner) => owner.kind === 'ScheduledJob')
  );
}

function selects(watch: CronJobWatch, cronJob: V1CronJob): boolean {
  const name = cronJob.metadata?.name ?? '';
  if (watch.spec?.names?.includes(name)) return true;
  const selector = watch.spec?.selector;
  return selector !== undefined && selectorMatches(selector, cronJob.metadata?.labels ?? {});
}

/**
 * Which CronJobWatch watches each CronJob of one namespace: the first by name of those that select
 * it (a CronJob two selections hold is watched once, with the first one's destinations). Deleted
 * watches and Crondeck's own CronJobs take no part.
 */
export function selectCronJobs(
  watches: readonly CronJobWatch[],
  cronJobs: readonly V1CronJob[],
): Map<string, { cronJob: V1CronJob; watch: CronJobWatch }> {
  const live = watches
    .filter((watch) => !watch.metadata?.deletionTimestamp)
    .sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  const selected = new Map<string, { cronJob: V1CronJob; watch: CronJobWatch }>();
  for (const cronJob of cronJobs) {
    if (isCrondecksOwn(cronJob) || cronJob.metadata?.deletionTimestamp) continue;
    const watch = live.find((candidate) => selects(candidate, cronJob));
    if (watch) selected.set(cronJob.metadata?.name ?? '', { cronJob, watch });
  }
  return selected;
}
