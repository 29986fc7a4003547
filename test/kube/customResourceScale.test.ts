import { KubeEmulator } from '../support/kube/emulator';

const GROUP = 'scale.crondeck.dev';
const BASE = `/apis/${GROUP}/v1/namespaces/default/gauges`;

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `gauges.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'gauges', singular: 'gauge', kind: 'Gauge', listKind: 'GaugeList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: {
          status: {},
          scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
        },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { replicas: { type: 'integer', maximum: 10 } } },
              status: { type: 'object', properties: { replicas: { type: 'integer' } } },
            },
          },
        },
      },
    ],
  },
};

describe('the /scale subresource of a custom resource', () => {
  let emu: KubeEmulator;
  const call = async (method: string, path: string, body?: unknown, contentType = 'application/json') => {
    const res = await fetch(`${emu.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${emu.adminToken}`,
        'content-type': contentType,
        'user-agent': 'scaler/1.0',
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  const scalePatch = (replicas: number) =>
    call('PATCH', `${BASE}/g/scale`, { spec: { replicas } }, 'application/merge-patch+json');

  beforeEach(async () => {
    emu = await KubeEmulator.start();
    expect((await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(
      201,
    );
    await new Promise((r) => setImmediate(r));
    const created = await call('POST', BASE, {
      apiVersion: `${GROUP}/v1`,
      kind: 'Gauge',
      metadata: { name: 'g' },
      spec: { replicas: 2 },
    });
    expect(created.status).toBe(201);
  });
  afterEach(() => emu.stop());

  test('reads the replicas as an autoscaling/v1 Scale and writes them into the resource', async () => {
    const scale = await call('GET', `${BASE}/g/scale`);
    expect(scale.body).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      spec: { replicas: 2 },
      status: { replicas: 0 },
    });
    const scaled = await scalePatch(4);
    expect(scaled).toMatchObject({ status: 200, body: { kind: 'Scale', spec: { replicas: 4 } } });
    expect((await call('GET', `${BASE}/g`)).body.spec.replicas).toBe(4);
  });

  test('the resource’s own schema judges the new replicas', async () => {
    const refused = await scalePatch(11);
    expect(refused.status).toBe(422);
    expect(refused.body.message).toBe(
      'Gauge.scale.crondeck.dev "g" is invalid: spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10',
    );
  });

  test('a manager’s first write through /scale takes over the replicas field (a new resourceVersion), the next identical one changes nothing', async () => {
    const before = (await call('GET', `${BASE}/g`)).body.metadata.resourceVersion;
    const first = await scalePatch(2);
    expect(first.body.metadata.resourceVersion).not.toBe(before);
    const stored = (await call('GET', `${BASE}/g`)).body;
    expect(stored.metadata.managedFields).toEqual([
      expect.objectContaining({
        manager: 'scaler',
        operation: 'Update',
        fieldsV1: { 'f:spec': { 'f:replicas': {} } },
      }),
    ]);
    const second = await scalePatch(2);
    expect(second.body.metadata.resourceVersion).toBe(first.body.metadata.resourceVersion);
  });
});
