/**
 * GET /openapi/v3: the documents kubectl and helm read to learn which kinds take server-side field
 * validation (the PATCH operation's fieldValidation parameter) and to validate against. The
 * generated documents are checked against what the recorded server generated.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { KubeEmulator } from '../support/kube/emulator';
import { OPENAPI_DIR } from '../support/kube/openapi';
import { kindPaths } from '../support/kube/openapiV3/builtinDocument';
import { customGroupVersionDocument, servedCustomKinds } from '../support/kube/openapiV3/crdDocument';
import type { Obj } from '../support/kube/types';
import { loadTranscript } from './replay/transcript';

const recorded = (file: string) => JSON.parse(readFileSync(path.join(OPENAPI_DIR, file), 'utf8')) as Obj;
const exampleCrd = () =>
  loadTranscript('01-crd-lifecycle.json').exchanges.find((e) => e.i === 4)!.request.body as Obj;

/** Every `$ref` of a document names one of its schemas. */
function danglingRefs(doc: Obj): string[] {
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (!v || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v)) {
      if (k === '$ref' && !doc.components.schemas[String(x).replace('#/components/schemas/', '')])
        out.push(String(x));
      else walk(x);
    }
  };
  walk(doc);
  return out;
}

describe('the documents as the server generates them', () => {
  test("a CRD's document: 01's CRD gives back the recorded document", () => {
    const doc = customGroupVersionDocument([servedCustomKinds(exampleCrd(), 'v1alpha1')!]);
    expect(doc).toEqual(recorded('apis__example.crondeck.dev__v1alpha1.json'));
  });

  test("a built-in kind's paths: the Jobs' paths renamed are the recorded CronJobs' paths", () => {
    const batch = recorded('apis__batch__v1.json');
    const cronJobs = Object.fromEntries(Object.entries(batch.paths).filter(([p]) => p.includes('/cronjobs')));
    expect(
      kindPaths(
        {
          group: 'batch',
          version: 'v1',
          kind: 'CronJob',
          plural: 'cronjobs',
          namespaced: true,
          status: true,
        },
        batch.paths,
      ),
    ).toEqual(cronJobs);
  });

  test('a cluster-scoped CRD has no namespace in its paths', () => {
    const crd = exampleCrd();
    crd.spec.scope = 'Cluster';
    const doc = customGroupVersionDocument([servedCustomKinds(crd, 'v1alpha1')!]);
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/apis/example.crondeck.dev/v1alpha1/scheduledjobs',
      '/apis/example.crondeck.dev/v1alpha1/scheduledjobs/{name}',
      '/apis/example.crondeck.dev/v1alpha1/scheduledjobs/{name}/status',
    ]);
    expect(doc.paths['/apis/example.crondeck.dev/v1alpha1/scheduledjobs/{name}'].patch.operationId).toBe(
      'patchExampleCrondeckDevV1alpha1ScheduledJob',
    );
    expect(danglingRefs(doc)).toEqual([]);
  });
});

describe('GET /openapi/v3 from the emulator', () => {
  let emu: KubeEmulator;
  const get = (p: string, accept = 'application/json') =>
    fetch(`${emu.url}${p}`, { headers: { authorization: `Bearer ${emu.adminToken}`, accept } });
  const index = async () => ((await (await get('/openapi/v3')).json()) as Obj).paths as Obj;

  beforeAll(async () => {
    emu = await KubeEmulator.start();
  });
  afterAll(() => emu.stop());

  test('the index lists each served group version with the hash of its document', async () => {
    const res = await get('/openapi/v3');
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const paths = await index();
    expect(Object.keys(paths)).toEqual(
      expect.arrayContaining([
        'api/v1',
        'apis/apps/v1',
        'apis/batch/v1',
        'apis/policy/v1',
        'apis/networking.k8s.io/v1',
      ]),
    );
    for (const p of ['api/v1', 'apis/apps/v1']) {
      const url = paths[p].serverRelativeURL as string;
      const doc = await get(url);
      expect(doc.headers.get('content-type')).toBe('application/json');
      const hash = createHash('sha512')
        .update(await doc.text())
        .digest('hex')
        .toUpperCase();
      expect(url).toBe(`/openapi/v3/${p}?hash=${hash}`);
    }
    // The recorded server's documents are served as they are.
    expect(await (await get('/openapi/v3/apis/batch/v1')).text()).toBe(
      readFileSync(path.join(OPENAPI_DIR, 'apis__batch__v1.json'), 'utf8'),
    );
    expect((await get('/openapi/v3/apis/nothing.example/v1')).status).toBe(404);
  });

  test("apps/v1's document: a Deployment's PATCH takes fieldValidation, and every reference resolves", async () => {
    const doc = (await (await get('/openapi/v3/apis/apps/v1')).json()) as Obj;
    const patch = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch;
    expect(patch['x-kubernetes-group-version-kind']).toEqual({
      group: 'apps',
      version: 'v1',
      kind: 'Deployment',
    });
    expect(patch.parameters.map((p: Obj) => p.name)).toContain('fieldValidation');
    expect(
      doc.components.schemas['io.k8s.api.apps.v1.Deployment']['x-kubernetes-group-version-kind'],
    ).toEqual([{ group: 'apps', kind: 'Deployment', version: 'v1' }]);
    expect(doc.components.schemas['io.k8s.api.apps.v1.DeploymentSpec'].properties.replicas.type).toBe(
      'integer',
    );
    expect(danglingRefs(doc)).toEqual([]);
  });

  test("a CRD's group version is listed once the CRD is established and gone once it is deleted", async () => {
    const crds = `${emu.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`;
    const headers = { authorization: `Bearer ${emu.adminToken}`, 'content-type': 'application/json' };
    expect(await index()).not.toHaveProperty(['apis/example.crondeck.dev/v1alpha1']);
    await fetch(crds, { method: 'POST', headers, body: JSON.stringify(exampleCrd()) });
    await new Promise((r) => setImmediate(r));
    const url = (await index())['apis/example.crondeck.dev/v1alpha1'].serverRelativeURL as string;
    expect(await (await get(url)).json()).toEqual(recorded('apis__example.crondeck.dev__v1alpha1.json'));
    await fetch(`${crds}/scheduledjobs.example.crondeck.dev`, { method: 'DELETE', headers });
    expect(await index()).not.toHaveProperty(['apis/example.crondeck.dev/v1alpha1']);
  });
});
