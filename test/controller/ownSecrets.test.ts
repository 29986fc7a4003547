import { ownSecretReference } from '../../src/controller/scheduledJobs/ownSecrets';
import type { ScheduledJob } from '../../src/kube/resources/scheduledJob';

const own = { namespace: 'crondeck', names: new Set(['crondeck-postgresql', 'crondeck-api-token']) };

const resource = (namespace: string, env: unknown[]): ScheduledJob =>
  ({
    apiVersion: 'crondeck.dev/v1alpha1',
    kind: 'ScheduledJob',
    metadata: { name: 'job', namespace },
    spec: { schedule: '0 3 * * *', command: 'true', env },
  }) as ScheduledJob;

const fromSecret = (name: string) => ({ name: 'X', valueFrom: { secretKeyRef: { name, key: 'k' } } });

describe('ownSecretReference', () => {
  it('names the first variable that reads one of Crondeck’s Secrets in its namespace', () => {
    const env = [{ name: 'A', value: 'a' }, fromSecret('mine'), fromSecret('crondeck-postgresql')];
    expect(ownSecretReference(resource('crondeck', env), own)).toBe(
      'spec.env[2].valueFrom.secretKeyRef: the Secret "crondeck-postgresql" holds Crondeck\'s own ' +
        'credentials; a job may not read it',
    );
  });

  it('lets a job name any other Secret, and the same names in another namespace (theirs)', () => {
    expect(ownSecretReference(resource('crondeck', [fromSecret('mine')]), own)).toBeNull();
    expect(ownSecretReference(resource('team-a', [fromSecret('crondeck-api-token')]), own)).toBeNull();
    expect(ownSecretReference(resource('crondeck', []), own)).toBeNull();
    expect(ownSecretReference({ ...resource('crondeck', []), spec: undefined } as never, own)).toBeNull();
  });

  it('ignores ConfigMaps of the same name', () => {
    const env = [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'crondeck-api-token', key: 'k' } } }];
    expect(ownSecretReference(resource('crondeck', env), own)).toBeNull();
  });
});
