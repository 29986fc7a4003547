import type { V1CronJob } from '@kubernetes/client-node';
import { selectCronJobs, selectorMatches } from '../../src/controller/watchedCronJobs/selection';
import type { CronJobWatch } from '../../src/kube/resources/cronJobWatch';

const cronJob = (name: string, metadata: V1CronJob['metadata'] = {}): V1CronJob => ({
  metadata: { name, namespace: 'ops', ...metadata },
  spec: { schedule: '0 3 * * *', jobTemplate: {} },
});
const watch = (
  name: string,
  spec: Omit<CronJobWatch['spec'], 'lateAfterSeconds' | 'allowBackfill'>,
  deleted = false,
): CronJobWatch => ({
  apiVersion: 'crondeck.dev/v1alpha1',
  kind: 'CronJobWatch',
  metadata: { name, namespace: 'ops', ...(deleted ? { deletionTimestamp: new Date() } : {}) },
  spec: { lateAfterSeconds: 60, allowBackfill: false, ...spec },
});

describe('which CronJobs a CronJobWatch selects', () => {
  it('reads a label selector as the API server does', () => {
    const labels = { team: 'data', tier: 'batch' };
    expect(selectorMatches({}, labels)).toBe(true);
    expect(selectorMatches({ matchLabels: { team: 'data' } }, labels)).toBe(true);
    expect(selectorMatches({ matchLabels: { team: 'web' } }, labels)).toBe(false);
    const expression = (operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist', values?: string[]) => ({
      matchExpressions: [{ key: 'tier', operator, ...(values ? { values } : {}) }],
    });
    expect(selectorMatches(expression('In', ['batch', 'x']), labels)).toBe(true);
    expect(selectorMatches(expression('In', ['x']), labels)).toBe(false);
    expect(selectorMatches(expression('In', ['x']), {})).toBe(false);
    expect(selectorMatches(expression('NotIn', ['batch']), labels)).toBe(false);
    // NotIn holds for a CronJob without the label, as in Kubernetes.
    expect(selectorMatches(expression('NotIn', ['batch']), {})).toBe(true);
    expect(selectorMatches(expression('Exists'), labels)).toBe(true);
    expect(selectorMatches(expression('Exists'), {})).toBe(false);
    expect(selectorMatches(expression('DoesNotExist'), labels)).toBe(false);
  });

  it('never selects a ScheduledJob’s CronJob, by its owner or its label', () => {
    const owned = cronJob('owned', {
      ownerReferences: [{ apiVersion: 'crondeck.dev/v1alpha1', kind: 'ScheduledJob', name: 'x', uid: 'u' }],
    });
    const labelled = cronJob('labelled', { labels: { 'app.kubernetes.io/managed-by': 'crondeck' } });
    const plain = cronJob('plain');
    const selected = selectCronJobs([watch('all', { selector: {} })], [owned, labelled, plain]);
    expect([...selected.keys()]).toEqual(['plain']);
  });

  it('gives a CronJob two selections hold to the first by name, and ignores deleted watches', () => {
    const jobs = [cronJob('a', { labels: { team: 'data' } }), cronJob('b')];
    const selected = selectCronJobs(
      [
        watch('z-names', { names: ['a', 'b'] }),
        watch('a-labels', { selector: { matchLabels: { team: 'data' } } }),
        watch('0-gone', { selector: {} }, true),
      ],
      jobs,
    );
    expect(Object.fromEntries([...selected].map(([name, { watch }]) => [name, watch.metadata.name]))).toEqual(
      {
        a: 'a-labels',
        b: 'z-names',
      },
    );
  });
});
