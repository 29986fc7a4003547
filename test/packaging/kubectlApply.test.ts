/**
 * kubectl apply with its defaults (client-side three-way merge, --server-side apply, strict
 * validation through the server's OpenAPI v3 documents) against the Kubernetes API emulator:
 * deploy/, the CRDs and the examples go in as they would on a real cluster, and a manifest with
 * an unknown field or a wrong type is refused.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Obj } from '../support/kube/types';
import { startHelmCluster, type HelmCluster } from './helmCluster';

const NS = 'crondeck';
// The way most people install CRDs: crds/ holds nothing but them.
const CRD_FILES = ['-f', 'crds/'];

/** [manager, operation] of each managedFields entry. */
function managers(o: Obj | undefined): string[][] {
  return ((o?.metadata?.managedFields ?? []) as Obj[]).map((e) => [e.manager, e.operation]);
}

describe('kubectl apply against the emulator', () => {
  let cluster: HelmCluster;
  const crd = (name: string) =>
    cluster.get('apiextensions.k8s.io/customresourcedefinitions', undefined, name);
  const job = (name: string) => cluster.get('crondeck.dev/scheduledjobs', NS, name);

  async function kubectlOk(args: string[]): Promise<string> {
    const r = await cluster.kubectl(args);
    if (!r.ok) throw new Error(`kubectl ${args.join(' ')} failed:\n${r.stderr}`);
    return r.stdout;
  }

  beforeAll(async () => {
    cluster = await startHelmCluster();
  });
  afterAll(() => cluster?.stop());

  test('kubectl apply -k deploy/ creates everything client-side, validated through /openapi/v3', async () => {
    const out = await kubectlOk(['apply', '-k', 'deploy/']);
    expect(out).toContain('deployment.apps/crondeck created');
    expect(out).toContain('customresourcedefinition.apiextensions.k8s.io/scheduledjobs.crondeck.dev created');
    const api = cluster.get('apps/deployments', NS, 'crondeck');
    expect(managers(api)).toEqual([['kubectl-client-side-apply', 'Update']]);
    expect(api!.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).toBeDefined();
    // kubectl asked the server which kinds take fieldValidation, instead of validating itself.
    const counts = cluster.emu.requestCounts();
    expect(counts['get openapi/v3']).toBeGreaterThan(0);
    expect(counts['get openapi/v3/*']).toBeGreaterThan(0);

    const again = await kubectlOk(['apply', '-k', 'deploy/']);
    expect(again).toContain('deployment.apps/crondeck unchanged');
    expect(again).toContain(
      'customresourcedefinition.apiextensions.k8s.io/scheduledjobs.crondeck.dev unchanged',
    );
  });

  test('kubectl apply --server-side takes the CRDs over from client-side apply without conflicts', async () => {
    const before = crd('scheduledjobs.crondeck.dev')!.metadata.resourceVersion;
    const out = await kubectlOk(['apply', '--server-side', ...CRD_FILES]);
    expect(out).toContain(
      'customresourcedefinition.apiextensions.k8s.io/scheduledjobs.crondeck.dev serverside-applied',
    );
    // kubectl migrated its client-side entry: the fields are now applied by "kubectl".
    expect(managers(crd('scheduledjobs.crondeck.dev'))).toContainEqual(['kubectl', 'Apply']);
    expect(managers(crd('scheduledjobs.crondeck.dev'))).not.toContainEqual([
      'kubectl-client-side-apply',
      'Update',
    ]);
    const after = crd('scheduledjobs.crondeck.dev')!.metadata.resourceVersion;
    expect(after).not.toBe(before);
    // Applying the same configuration again changes nothing.
    await kubectlOk(['apply', '--server-side', ...CRD_FILES]);
    expect(crd('scheduledjobs.crondeck.dev')!.metadata.resourceVersion).toBe(after);
  });

  test('kubectl apply --server-side -k deploy/ takes deploy/ over from client-side apply without conflicts', async () => {
    // Every field is written as the server stores it (fieldRef.apiVersion included): a value the
    // server defaulted would be owned by another manager and conflict.
    const out = await kubectlOk(['apply', '--server-side', '-k', 'deploy/']);
    expect(out).toContain('deployment.apps/crondeck serverside-applied');
    expect(managers(cluster.get('apps/deployments', NS, 'crondeck'))).toContainEqual(['kubectl', 'Apply']);
  });

  test('examples applied client-side, then server-side with a change; another manager conflicts', async () => {
    await kubectlOk(['apply', '-n', NS, '-f', 'examples/']);
    expect(managers(job('nightly-report'))).toEqual([['kubectl-client-side-apply', 'Update']]);
    const changed = (schedule: string) => {
      const file = path.join(cluster.dir, `nightly-${schedule.replace(/\W/g, '')}.yaml`);
      writeFileSync(
        file,
        JSON.stringify({
          apiVersion: 'crondeck.dev/v1alpha1',
          kind: 'ScheduledJob',
          metadata: { name: 'nightly-report' },
          spec: { ...job('nightly-report')!.spec, schedule },
        }),
      );
      return file;
    };
    // The schedule kubectl's client-side apply set may change: its last-applied configuration
    // says kubectl owned it (no conflict with "kubectl-client-side-apply").
    await kubectlOk(['apply', '--server-side', '-n', NS, '-f', changed('45 3 * * *')]);
    expect(job('nightly-report')!.spec.schedule).toBe('45 3 * * *');
    expect(job('nightly-report')!.spec.command).toContain('pg_stat_activity');
    expect(managers(job('nightly-report'))).toContainEqual(['kubectl', 'Apply']);

    const other = await cluster.kubectl([
      'apply',
      '--server-side',
      '--field-manager=ops',
      '-n',
      NS,
      '-f',
      changed('0 4 * * *'),
    ]);
    expect(other.ok).toBe(false);
    expect(other.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl": .spec.schedule');
    await kubectlOk([
      'apply',
      '--server-side',
      '--force-conflicts',
      '--field-manager=ops',
      '-n',
      NS,
      '-f',
      changed('0 4 * * *'),
    ]);
    expect(job('nightly-report')!.spec.schedule).toBe('0 4 * * *');
  });

  test('an unknown field or a wrong type is refused, client-side and server-side', async () => {
    const manifest = (spec: Obj) => {
      const file = path.join(cluster.dir, `bad-${Object.keys(spec).join('-')}.yaml`);
      writeFileSync(
        file,
        JSON.stringify({
          apiVersion: 'crondeck.dev/v1alpha1',
          kind: 'ScheduledJob',
          metadata: { name: 'bad' },
          spec: { schedule: '* * * * *', command: 'true', ...spec },
        }),
      );
      return file;
    };
    const unknown = manifest({ frequency: 'often' });
    const clientSide = await cluster.kubectl(['apply', '-n', NS, '-f', unknown]);
    expect(clientSide.ok).toBe(false);
    expect(clientSide.stderr).toContain('strict decoding error: unknown field "spec.frequency"');
    const serverSide = await cluster.kubectl(['apply', '--server-side', '-n', NS, '-f', unknown]);
    expect(serverSide.ok).toBe(false);
    expect(serverSide.stderr).toContain('.spec.frequency: field not declared in schema');

    const wrongType = manifest({ suspend: 'yes' });
    const refused = await cluster.kubectl(['apply', '-n', NS, '-f', wrongType]);
    expect(refused.ok).toBe(false);
    expect(refused.stderr).toContain('spec.suspend in body must be of type boolean');
    const refusedApply = await cluster.kubectl(['apply', '--server-side', '-n', NS, '-f', wrongType]);
    expect(refusedApply.ok).toBe(false);
    expect(refusedApply.stderr).toContain('.spec.suspend: expected boolean');
    expect(job('bad')).toBeUndefined();
  });
});
