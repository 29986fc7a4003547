/**
 * The emulator's additions for Helm (test/packaging/helmUpgrade.test.ts runs the real helm against
 * them): strategic merge patch, the chart's kinds, protobuf request bodies, aggregated discovery.
 */
import { KubeEmulator } from '../support/kube/emulator';
import type { Obj } from '../support/kube/types';

const NS = 'apps';

const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: NS, finalizers: ['a.example/x'] },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: [
          {
            name: 'web',
            image: 'web:1',
            args: ['serve'],
            env: [
              { name: 'A', value: '1' },
              { name: 'B', value: '2' },
              { name: 'C', value: '3' },
            ],
          },
          { name: 'sidecar', image: 'side:1' },
        ],
      },
    },
  },
};

/** A protobuf body as client-go's clientsets send it: `k8s\0` + runtime.Unknown{typeMeta, raw}. */
function field(number: number, payload: Buffer | string): Buffer {
  const bytes = typeof payload === 'string' ? Buffer.from(payload) : payload;
  return Buffer.concat([Buffer.from([(number << 3) | 2, bytes.length]), bytes]);
}
function protobufBody(apiVersion: string, kind: string, raw: Buffer): Buffer {
  const typeMeta = Buffer.concat([field(1, apiVersion), field(2, kind)]);
  return Buffer.concat([Buffer.from('k8s\0'), field(1, typeMeta), field(2, raw)]);
}

describe('emulated workloads, strategic merge patch and protobuf bodies', () => {
  let emu: KubeEmulator;
  const request = async (method: string, path: string, body?: unknown, contentType = 'application/json') => {
    const res = await fetch(`${emu.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${emu.adminToken}`,
        'content-type': contentType,
        accept: 'application/json',
      },
      body: body === undefined ? undefined : Buffer.isBuffer(body) ? body : JSON.stringify(body),
    });
    return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as Obj };
  };
  const smp = (path: string, patch: unknown) =>
    request('PATCH', path, patch, 'application/strategic-merge-patch+json');

  beforeEach(async () => {
    emu = await KubeEmulator.start();
    emu.seed(emu.typeByName('namespaces'), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  });
  afterEach(() => emu.stop());

  test('a Deployment gets the server defaults and status; its selector must match and cannot change', async () => {
    const created = await request('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, deployment);
    expect(created.status).toBe(201);
    expect(created.body.spec).toMatchObject({
      replicas: 1,
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
    });
    expect(created.body.spec.template.spec.restartPolicy).toBe('Always');
    expect(created.body.metadata.generation).toBe(1);
    const moved = await request(
      'PATCH',
      `/apis/apps/v1/namespaces/${NS}/deployments/web`,
      {
        spec: {
          selector: { matchLabels: { app: 'other' } },
          template: { metadata: { labels: { app: 'other' } } },
        },
      },
      'application/merge-patch+json',
    );
    expect(moved.status).toBe(422);
    expect(moved.body.message).toContain(
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"other"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
    );
    const unknownShape = await request('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
      ...deployment,
      metadata: { name: 'bad' },
      spec: { ...deployment.spec, replicas: 'two' },
    });
    expect(unknownShape.status).toBe(400);
    expect(unknownShape.body.message).toBe(
      'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    );
  });

  test('strategic merge patch merges lists by their merge key and obeys the directives', async () => {
    await request('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, deployment);
    const path = `/apis/apps/v1/namespaces/${NS}/deployments/web`;
    const patched = await smp(path, {
      metadata: { finalizers: ['b.example/y'] },
      spec: {
        strategy: { $retainKeys: ['type'], type: 'Recreate' },
        template: {
          spec: {
            containers: [
              {
                name: 'web',
                env: [
                  { name: 'B', value: 'two' },
                  { name: 'D', value: '4' },
                  { name: 'A', $patch: 'delete' },
                ],
              },
            ],
          },
        },
      },
    });
    expect(patched.status).toBe(200);
    const web = patched.body.spec.template.spec.containers[0];
    expect(patched.body.spec.template.spec.containers.map((c: Obj) => c.name)).toEqual(['web', 'sidecar']);
    expect(web.image).toBe('web:1');
    // The real server's order (strategicpatch's normalizeElementOrder): the patch's items in patch
    // order, the server-only C after B, which it followed, and after the new D.
    expect(web.env).toEqual([
      { name: 'B', value: 'two' },
      { name: 'D', value: '4' },
      { name: 'C', value: '3' },
    ]);
    expect(patched.body.spec.strategy).toEqual({ type: 'Recreate' });
    expect(patched.body.metadata.finalizers).toEqual(['a.example/x', 'b.example/y']);
    expect(patched.body.metadata.generation).toBe(2);

    const ordered = await smp(path, {
      metadata: { '$deleteFromPrimitiveList/finalizers': ['a.example/x'] },
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'web' }],
            containers: [{ name: 'web', args: ['run'] }],
          },
        },
      },
    });
    expect(ordered.body.metadata.finalizers).toEqual(['b.example/y']);
    expect(ordered.body.spec.template.spec.containers.map((c: Obj) => c.name)).toEqual(['sidecar', 'web']);
    expect(ordered.body.spec.template.spec.containers[1].args).toEqual(['run']);
  });

  test("a StatefulSet's volume claim templates cannot change; a Service keeps its cluster IP", async () => {
    const sts = {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace: NS },
      spec: {
        serviceName: 'db',
        selector: { matchLabels: { app: 'db' } },
        template: {
          metadata: { labels: { app: 'db' } },
          spec: { containers: [{ name: 'db', image: 'pg:16' }] },
        },
        volumeClaimTemplates: [
          {
            metadata: { name: 'data' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          },
        ],
      },
    };
    const created = await request('POST', `/apis/apps/v1/namespaces/${NS}/statefulsets`, sts);
    expect(created.body.spec.volumeClaimTemplates[0]).toMatchObject({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      spec: { volumeMode: 'Filesystem' },
      status: { phase: 'Pending' },
    });
    const path = `/apis/apps/v1/namespaces/${NS}/statefulsets/db`;
    expect((await smp(path, { spec: { replicas: 2 } })).status).toBe(200);
    const grown = await smp(path, {
      spec: {
        volumeClaimTemplates: [
          { ...sts.spec.volumeClaimTemplates[0], metadata: { name: 'data', labels: { a: 'b' } } },
        ],
      },
    });
    expect(grown.status).toBe(422);
    expect(grown.body.message).toContain(
      "spec: Forbidden: updates to statefulset spec for fields other than 'replicas'",
    );

    const svc = await request('POST', `/api/v1/namespaces/${NS}/services`, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'db' },
      spec: { selector: { app: 'db' }, ports: [{ name: 'pg', port: 5432 }] },
    });
    // The recorded server's service range is 10.0.0.0/24 (19 #76); .1 is the kubernetes Service's.
    expect(svc.body.spec.clusterIP).toMatch(/^10\.0\.0\.([2-9]|[1-9]\d|1\d\d|2[0-4]\d|25[0-4])$/);
    expect(svc.body.spec.ports).toEqual([{ name: 'pg', port: 5432, targetPort: 5432, protocol: 'TCP' }]);
    const { clusterIP: _ip, clusterIPs: _ips, ...withoutIp } = svc.body.spec;
    const replaced = await request('PUT', `/api/v1/namespaces/${NS}/services/db`, {
      ...svc.body,
      spec: withoutIp,
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.spec.clusterIP).toBe(svc.body.spec.clusterIP);
  });

  test('protobuf bodies: a Secret is decoded, any other kind is refused as not emulated', async () => {
    const meta = Buffer.concat([
      field(1, 'sh.helm.release.v1.rel.v1'),
      field(11, Buffer.concat([field(1, 'owner'), field(2, 'helm')])),
    ]);
    const raw = Buffer.concat([
      field(1, meta),
      field(2, Buffer.concat([field(1, 'release'), field(2, Buffer.from([0, 1, 2]))])),
      field(3, 'helm.sh/release.v1'),
    ]);
    const created = await request(
      'POST',
      `/api/v1/namespaces/${NS}/secrets`,
      protobufBody('v1', 'Secret', raw),
      'application/vnd.kubernetes.protobuf',
    );
    expect(created.status).toBe(201);
    expect(created.body.metadata).toMatchObject({
      name: 'sh.helm.release.v1.rel.v1',
      labels: { owner: 'helm' },
    });
    expect(created.body.data).toEqual({ release: Buffer.from([0, 1, 2]).toString('base64') });
    expect(created.body.type).toBe('helm.sh/release.v1');

    const configMap = protobufBody('v1', 'ConfigMap', field(1, field(1, 'x')));
    const refused = await request(
      'POST',
      `/api/v1/namespaces/${NS}/configmaps`,
      configMap,
      'application/vnd.kubernetes.protobuf',
    );
    expect(refused.status).toBe(501);
    expect(refused.body.message).toContain('protobuf bodies of v1 ConfigMap');
  });

  test('aggregated discovery of /api and /apis carries its content type', async () => {
    const accept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';
    for (const path of ['/api', '/apis']) {
      const res = await fetch(`${emu.url}${path}`, {
        headers: { authorization: `Bearer ${emu.adminToken}`, accept },
      });
      expect(res.headers.get('content-type')).toBe(
        'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
      );
      const body = (await res.json()) as Obj;
      expect(body.kind).toBe('APIGroupDiscoveryList');
      const resources = body.items.flatMap((g: Obj) =>
        g.versions.flatMap((v: Obj) => v.resources.map((r: Obj) => r.resource)),
      );
      expect(resources).toEqual(
        expect.arrayContaining(
          path === '/api'
            ? ['services', 'secrets']
            : ['deployments', 'statefulsets', 'poddisruptionbudgets', 'ingresses'],
        ),
      );
    }
  });
});
