import { KubeEmulator } from '../support/kube/emulator';
import type { Obj } from '../support/kube/types';

/**
 * What the emulator does to pods beyond what 08/09 replay: the ServiceAccount admission plugin's
 * refusals and opt-outs, the binding's conflicts, strategic merge on pods.
 */
describe('pods: ServiceAccount admission, binding, strategic merge', () => {
  let emu: KubeEmulator;
  beforeEach(async () => {
    emu = await KubeEmulator.start();
    await call('POST', '/api/v1/namespaces', { metadata: { name: 'ops' } });
  });
  afterEach(() => emu.stop());

  async function call(method: string, path: string, body?: unknown, contentType = 'application/json') {
    const res = await fetch(`${emu.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${emu.adminToken}`, 'content-type': contentType },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Obj };
  }

  const pod = (extra: { metadata?: object; spec?: object } = {}) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', ...extra.metadata },
    spec: {
      containers: [{ name: 'main', image: 'busybox:1.36' }],
      ...extra.spec,
    },
  });
  const createPod = (body: object) => call('POST', '/api/v1/namespaces/ops/pods', body);

  test('a new namespace has its default ServiceAccount, whose token every container mounts', async () => {
    expect(emu.objects('serviceaccounts', 'ops').map((s) => s.metadata.name)).toEqual(['default']);
    const { status, body } = await createPod(
      pod({ spec: { initContainers: [{ name: 'init', image: 'busybox:1.36' }] } }),
    );
    expect(status).toBe(201);
    expect(body.spec.serviceAccountName).toBe('default');
    const [volume] = body.spec.volumes;
    expect(volume.name).toMatch(/^kube-api-access-[a-z0-9]{5}$/);
    expect(volume.projected.sources.map((s: object) => Object.keys(s)[0])).toEqual([
      'serviceAccountToken',
      'configMap',
      'downwardAPI',
    ]);
    const mount = {
      name: volume.name,
      readOnly: true,
      mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
    };
    expect(body.spec.initContainers[0].volumeMounts).toEqual([mount]);
    expect(body.spec.containers[0].volumeMounts).toEqual([mount]);
  });

  test('a pod naming a missing ServiceAccount is forbidden', async () => {
    const named = await createPod(pod({ spec: { serviceAccountName: 'runner' } }));
    expect(named.status).toBe(403);
    expect(named.body.message).toBe(
      'pods "p" is forbidden: error looking up service account ops/runner: serviceaccount "runner" not found',
    );
    const generated = await createPod(
      pod({ metadata: { name: undefined, generateName: 'p-' }, spec: { serviceAccountName: 'runner' } }),
    );
    expect(generated.body.message).toMatch(
      /^pods is forbidden: error looking up service account ops\/runner/,
    );
    expect(emu.objects('pods', 'ops')).toEqual([]);
  });

  test('automounting: the pod decides over its ServiceAccount; a container with its own mount there keeps it', async () => {
    await call('POST', '/api/v1/namespaces/ops/serviceaccounts', {
      metadata: { name: 'quiet' },
      automountServiceAccountToken: false,
      imagePullSecrets: [{ name: 'registry' }],
    });
    const quiet = await createPod(pod({ spec: { serviceAccountName: 'quiet' } }));
    expect(quiet.body.spec.volumes).toBeUndefined();
    expect(quiet.body.spec.imagePullSecrets).toEqual([{ name: 'registry' }]);

    const optIn = await createPod(
      pod({
        metadata: { name: 'q' },
        spec: { serviceAccountName: 'quiet', automountServiceAccountToken: true },
      }),
    );
    expect(optIn.body.spec.volumes).toHaveLength(1);

    const optOut = await createPod(
      pod({ metadata: { name: 'r' }, spec: { automountServiceAccountToken: false } }),
    );
    expect(optOut.body.spec.volumes).toBeUndefined();

    const own = { name: 'mine', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' };
    const mixed = await createPod(
      pod({
        metadata: { name: 's' },
        spec: {
          volumes: [{ name: 'mine', emptyDir: {} }],
          containers: [
            { name: 'a', image: 'busybox:1.36', volumeMounts: [own] },
            { name: 'b', image: 'busybox:1.36' },
          ],
        },
      }),
    );
    expect(mixed.body.spec.containers[0].volumeMounts).toEqual([own]);
    expect(mixed.body.spec.containers[1].volumeMounts[0].name).toBe(mixed.body.spec.volumes[1].name);
  });

  test('binding: PodScheduled once; a bound pod cannot be bound again', async () => {
    await createPod(pod());
    const binding = { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target: { name: 'n1' } };
    expect((await call('POST', '/api/v1/namespaces/ops/pods/p/binding', binding)).status).toBe(201);
    const bound = await call('GET', '/api/v1/namespaces/ops/pods/p');
    expect(bound.body.spec.nodeName).toBe('n1');
    expect(bound.body.status.conditions).toEqual([
      { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: expect.any(String) },
    ]);
    const again = await call('POST', '/api/v1/namespaces/ops/pods/p/binding', {
      ...binding,
      target: { name: 'n2' },
    });
    expect(again.status).toBe(409);
    expect(again.body.message).toBe(
      'Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "n1"',
    );
  });

  test('strategic merge: lists merge by their key, other lists are replaced', async () => {
    await createPod(
      pod({ metadata: { finalizers: ['a/one'] }, spec: { tolerations: [{ key: 'x', operator: 'Exists' }] } }),
    );
    const smp = 'application/strategic-merge-patch+json';
    const patched = await call(
      'PATCH',
      '/api/v1/namespaces/ops/pods/p',
      {
        metadata: { finalizers: ['a/two'] },
        spec: { containers: [{ name: 'main', image: 'busybox:1.37' }] },
      },
      smp,
    );
    expect(patched.status).toBe(200);
    expect(patched.body.metadata.finalizers).toEqual(['a/one', 'a/two']);
    expect(patched.body.spec.containers).toHaveLength(1);
    expect(patched.body.spec.containers[0].image).toBe('busybox:1.37');
    expect(patched.body.spec.containers[0].volumeMounts).toHaveLength(1);
    const status = (containerStatuses: object[]) =>
      call('PATCH', '/api/v1/namespaces/ops/pods/p/status', { status: { containerStatuses } }, smp);
    await status([{ name: 'main', ready: true }, { name: 'side' }]);
    const replaced = await status([{ name: 'side', restartCount: 1 }]);
    expect(replaced.body.status.containerStatuses).toEqual([
      { name: 'side', restartCount: 1, state: {}, lastState: {}, ready: false, image: '', imageID: '' },
    ]);
  });
});
