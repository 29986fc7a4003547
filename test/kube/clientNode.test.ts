import {
  ApiException,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { KubeEmulator } from '../support/kube/emulator';
import { kubeConfigFor } from '../support/kube/kubeconfig';

const GROUP = 'crondeck.dev';
const VERSION = 'v1alpha1';
const PLURAL = 'scheduledjobs';

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${PLURAL}.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: PLURAL, singular: 'scheduledjob', kind: 'ScheduledJob', listKind: 'ScheduledJobList' },
    versions: [
      {
        name: VERSION,
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: { schedule: { type: 'string' }, suspend: { type: 'boolean', default: false } },
              },
              status: { type: 'object', properties: { phase: { type: 'string' } } },
            },
          },
        },
      },
    ],
  },
};

async function eventually(check: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('the emulator through the real @kubernetes/client-node', () => {
  let emu: KubeEmulator;
  beforeEach(async () => {
    emu = await KubeEmulator.start();
    const kc = kubeConfigFor(emu);
    await kc.makeApiClient(CustomObjectsApi).createClusterCustomObject({
      group: 'apiextensions.k8s.io',
      version: 'v1',
      plural: 'customresourcedefinitions',
      body: crd,
    });
    await eventually(
      () => emu.registry.find(GROUP, VERSION, PLURAL) !== undefined,
      'the CRD to be established',
    );
    await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: 'ops' } } });
  });
  afterEach(() => emu.stop());

  test('an informer lists, watches, sees an update and a delete, and re-lists after a 410', async () => {
    const kc = kubeConfigFor(emu);
    const custom = kc.makeApiClient(CustomObjectsApi);
    const create = (name: string) =>
      custom.createNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: 'ops',
        plural: PLURAL,
        body: {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: 'ScheduledJob',
          metadata: { name },
          spec: { schedule: '* * * * *' },
        },
      });
    await create('first');
    const informer = makeInformer<KubernetesObject>(
      kc,
      `/apis/${GROUP}/${VERSION}/namespaces/ops/${PLURAL}`,
      () =>
        custom.listNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          namespace: 'ops',
          plural: PLURAL,
        }),
    );
    const seen: string[] = [];
    informer.on('add', (o) => seen.push(`add ${o.metadata?.name}`));
    informer.on('update', (o) =>
      seen.push(`update ${o.metadata?.name} ${(o as { spec?: { suspend?: boolean } }).spec?.suspend}`),
    );
    informer.on('delete', (o) => seen.push(`delete ${o.metadata?.name}`));
    await informer.start();
    try {
      await eventually(() => seen.includes('add first'), 'the listed object');
      await custom.patchNamespacedCustomObject(
        {
          group: GROUP,
          version: VERSION,
          namespace: 'ops',
          plural: PLURAL,
          name: 'first',
          body: { spec: { suspend: true } },
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      await eventually(() => seen.includes('update first true'), 'the update through the watch');
      await create('second');
      await eventually(() => seen.includes('add second'), 'an ADDED event');
      await custom.deleteNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: 'ops',
        plural: PLURAL,
        name: 'second',
      });
      await eventually(() => seen.includes('delete second'), 'a DELETED event');

      const listsBefore = emu.requestCounts()['list scheduledjobs'] ?? 0;
      emu.expireWatches();
      await eventually(
        () => (emu.requestCounts()['list scheduledjobs'] ?? 0) === listsBefore + 1,
        'the re-list after 410',
      );
      await create('third');
      await eventually(() => seen.includes('add third'), 'events after the re-list');
      expect(
        informer
          .list()
          .map((o) => o.metadata?.name)
          .sort(),
      ).toEqual(['first', 'third']);
    } finally {
      await informer.stop();
    }
  });

  test('typed clients: status subresource, conflicts as ApiException 409, Lease round trip', async () => {
    const kc = kubeConfigFor(emu);
    const custom = kc.makeApiClient(CustomObjectsApi);
    const created = (await custom.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: 'ops',
      plural: PLURAL,
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'ScheduledJob',
        metadata: { name: 's' },
        spec: { schedule: '* * * * *' },
      },
    })) as { metadata: { resourceVersion: string; generation: number }; spec: { suspend: boolean } };
    expect(created.spec.suspend).toBe(false);
    const withStatus = (await custom.patchNamespacedCustomObjectStatus(
      {
        group: GROUP,
        version: VERSION,
        namespace: 'ops',
        plural: PLURAL,
        name: 's',
        body: { status: { phase: 'Ready' } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    )) as { metadata: { generation: number }; status: { phase: string } };
    expect(withStatus.status.phase).toBe('Ready');
    expect(withStatus.metadata.generation).toBe(1);

    const leases = kc.makeApiClient(CoordinationV1Api);
    // client-node serialises a Date with 3 fraction digits; a MicroTime needs 6 (10-lease #13),
    // so the real server refuses it, and so does the emulator. Send the 6-digit string instead.
    await expect(
      leases.createNamespacedLease({
        namespace: 'ops',
        body: { metadata: { name: 'leader' }, spec: { holderIdentity: 'a', renewTime: new Date() } },
      }),
    ).rejects.toMatchObject({ code: 400 });
    const micro = new Date().toISOString().replace(/Z$/, '000Z') as unknown as Date;
    const lease = await leases.createNamespacedLease({
      namespace: 'ops',
      body: {
        metadata: { name: 'leader' },
        spec: { holderIdentity: 'a', leaseDurationSeconds: 15, renewTime: micro },
      },
    });
    expect(String(lease.spec?.renewTime)).toMatch(/\.\d{6}Z$/);
    const spec = { ...lease.spec, renewTime: micro };
    await leases.replaceNamespacedLease({
      namespace: 'ops',
      name: 'leader',
      body: { ...lease, spec: { ...spec, holderIdentity: 'b' } },
    });
    const stale = leases.replaceNamespacedLease({
      namespace: 'ops',
      name: 'leader',
      body: { ...lease, spec: { ...spec, holderIdentity: 'c' } },
    });
    await expect(stale).rejects.toBeInstanceOf(ApiException);
    await expect(stale).rejects.toMatchObject({ code: 409 });
    expect(emu.requestCounts()).toMatchObject({
      'create leases': 2,
      'update leases': 2,
      'patch scheduledjobs/status': 1,
    });
    expect(emu.objects('leases', 'ops').map((l) => l.spec.holderIdentity)).toEqual(['b']);
  });
});
