import { manualJobFromCronJob } from '../../src/runtime/kubernetes/manualRun';
import { DNS1123_SUBDOMAIN_PATTERN } from '../../src/kube/resources/kubernetesFields';

describe('the name of a run started now', () => {
  const jobName = (cronJobName: string) =>
    manualJobFromCronJob({ metadata: { name: cronJobName, namespace: 'ns', uid: 'u' } }, 'a1b2c3').metadata!
      .name!;

  it('is the CronJob’s name and a suffix, at most 63 characters', () => {
    expect(jobName('backup')).toBe('backup-manual-a1b2c3');
    expect(jobName('x'.repeat(52))).toHaveLength(63);
  });

  it('stays a DNS-1123 name where the cut falls on a dot or a dash', () => {
    for (const cut of ['.', '-', '.-', '-.']) {
      const cronJobName = `${'a'.repeat(49 - cut.length)}${cut}bc`;
      const name = jobName(cronJobName);
      expect({ name, valid: DNS1123_SUBDOMAIN_PATTERN.test(name) }).toEqual({ name, valid: true });
    }
  });
});
