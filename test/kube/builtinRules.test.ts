/**
 * What the emulator's built-ins do beyond the recorded exchanges of 19-builtin-validation, which
 * prove the texts: real (not dry-run) allocation, the aggregation controller against a writer,
 * canonical quantities, immutability, warnings only when a template changes, and the loud refusal
 * of pod spec updates.
 */
import { KubeEmulator } from '../support/kube/emulator';
import type { Obj } from '../support/kube/types';

const NS = 'rules';

describe('built-in kinds beyond the recordings', () => {
  let emu: KubeEmulator;
  const request = async (method: string, path: string, body?: unknown, contentType = 'application/json') => {
    const res = await fetch(`${emu.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${emu.adminToken}`, 'content-type': contentType },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, warning: res.headers.get('warning'), body: (await res.json()) as Obj };
  };
  const core = (resource: string) => `/api/v1/namespaces/${NS}/${resource}`;
  const rbac = '/apis/rbac.authorization.k8s.io/v1/clusterroles';

  beforeEach(async () => {
    emu = await KubeEmulator.start();
    emu.seed(emu.typeByName('namespaces'), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  });
  afterEach(() => emu.stop());

  test('an aggregated ClusterRole holds the rules of the roles it selects, whatever is written to it', async () => {
    const viewRules = [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }];
    await request('POST', rbac, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'view-part', labels: { 'example.com/aggregate': 'true' } },
      rules: viewRules,
    });
    const created = await request('POST', rbac, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'all' },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'example.com/aggregate': 'true' } }] },
    });
    expect(created.status).toBe(201);
    expect((await request('GET', `${rbac}/all`)).body.rules).toEqual(viewRules);

    const written = await request(
      'PATCH',
      `${rbac}/all`,
      { rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] },
      'application/merge-patch+json',
    );
    expect(written.status).toBe(200);
    expect((await request('GET', `${rbac}/all`)).body.rules).toEqual(viewRules);

    await request(
      'PATCH',
      `${rbac}/view-part`,
      { metadata: { labels: null } },
      'application/merge-patch+json',
    );
    expect((await request('GET', `${rbac}/all`)).body.rules).toEqual([]);
  });

  test('a real create allocates a cluster IP in 10.0.0.0/24 and node ports in 30000-32767, each once', async () => {
    const service = (name: string, nodePort?: number) => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name },
      spec: {
        type: 'NodePort',
        selector: { app: name },
        ports: [{ port: 80, ...(nodePort ? { nodePort } : {}) }],
      },
    });
    const first = await request('POST', core('services'), service('first'));
    expect(first.status).toBe(201);
    expect(first.body.spec.clusterIP).toMatch(/^10\.0\.0\.\d+$/);
    const port = first.body.spec.ports[0].nodePort as number;
    expect(port).toBeGreaterThanOrEqual(30000);
    expect(port).toBeLessThanOrEqual(32767);
    const clash = await request('POST', core('services'), service('second', port));
    expect(clash.status).toBe(422);
    expect(clash.body.message).toBe(
      `Service "second" is invalid: spec.ports[0].nodePort: Invalid value: ${port}: provided port is already allocated`,
    );
    const dryRun = await request('POST', `${core('services')}?dryRun=All`, service('third', 80));
    expect(dryRun.status).toBe(201);
    expect(dryRun.body.spec.clusterIP).toBe('10.0.0.0');
  });

  test('quantities are answered canonical, and a Pod without requests gets its limits as requests', async () => {
    const pod = await request('POST', core('pods'), {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: {
        containers: [
          { name: 'c', image: 'busybox:1.36', resources: { limits: { cpu: 0.5, memory: '1024Mi' } } },
        ],
      },
    });
    expect(pod.status).toBe(201);
    expect(pod.body.spec.containers[0].resources).toEqual({
      limits: { cpu: '500m', memory: '1Gi' },
      requests: { cpu: '500m', memory: '1Gi' },
    });
    expect(pod.body.status.qosClass).toBe('Guaranteed');
  });

  test('an immutable ConfigMap refuses new data and losing its immutability', async () => {
    await request('POST', core('configmaps'), {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'frozen' },
      data: { a: '1' },
      immutable: true,
    });
    const changed = await request(
      'PATCH',
      `${core('configmaps')}/frozen`,
      { data: { a: '2' }, immutable: false },
      'application/merge-patch+json',
    );
    expect(changed.status).toBe(422);
    expect(changed.body.message).toBe(
      'ConfigMap "frozen" is invalid: [immutable: Forbidden: field is immutable when `immutable` is set, data: Forbidden: field is immutable when `immutable` is set]',
    );
  });

  test('pod template warnings come with a create and a template change, not with other writes', async () => {
    const path = `/apis/apps/v1/namespaces/${NS}/deployments`;
    const template = (image: string) => ({
      metadata: { labels: { app: 'w' } },
      spec: {
        containers: [
          {
            name: 'c',
            image,
            env: [
              { name: 'X', value: '1' },
              { name: 'X', value: '2' },
            ],
          },
        ],
      },
    });
    const hidden =
      '299 - "spec.template.spec.containers[0].env[1]: hides previous definition of \\"X\\", which may be dropped when using apply"';
    const created = await request('POST', path, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'w' },
      spec: { selector: { matchLabels: { app: 'w' } }, template: template('a:1') },
    });
    expect(created.warning).toBe(hidden);
    const scaled = await request(
      'PATCH',
      `${path}/w`,
      { spec: { replicas: 2 } },
      'application/merge-patch+json',
    );
    expect(scaled.status).toBe(200);
    expect(scaled.warning).toBeNull();
    const changed = await request(
      'PATCH',
      `${path}/w`,
      { spec: { template: template('a:2') } },
      'application/merge-patch+json',
    );
    expect(changed.warning).toBe(hidden);
  });

  test("an update of a pod's spec beyond what may change is refused loudly", async () => {
    await request('POST', `/api/v1/namespaces/${NS}/pods`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'c', image: 'busybox:1.36' }] },
    });
    const image = await request(
      'PATCH',
      `${core('pods')}/p`,
      { spec: { containers: [{ name: 'c', image: 'busybox:1.37' }] } },
      'application/strategic-merge-patch+json',
    );
    expect(image.status).toBe(200);
    const command = await request(
      'PATCH',
      `${core('pods')}/p`,
      { spec: { containers: [{ name: 'c', command: ['true'] }] } },
      'application/strategic-merge-patch+json',
    );
    expect(command.status).toBe(501);
    expect(command.body.message).toMatch(/^not emulated: /);
  });
});
