/**
 * Server-side apply and managedFields on built-in kinds, where the transcripts (04 applies to a
 * custom resource only) do not reach: keyed lists merged by their keys, ports keyed with a
 * defaulted protocol, conflicts with updaters, typed-conversion failures, untracked objects.
 */
import { KubeEmulator } from '../support/kube/emulator';
import { merge } from '../support/kube/serverSideApply/typedValue';
import { TypeNodes } from '../support/kube/serverSideApply/typeNodes';
import type { Obj } from '../support/kube/types';

const NS = 'ssa';
const PATH = `/apis/apps/v1/namespaces/${NS}/deployments`;

function deployment(containers: Obj[], extra: Obj = {}): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers } },
      ...extra,
    },
  };
}

/** [manager, operation] of each managedFields entry. */
function owners(o: Obj): string[][] {
  return (o.metadata.managedFields as Obj[]).map((e) => [e.manager, e.operation]);
}

function fieldsOf(o: Obj, manager: string, operation = 'Apply'): Obj {
  return (o.metadata.managedFields as Obj[]).find((e) => e.manager === manager && e.operation === operation)!
    .fieldsV1;
}

describe('server-side apply on built-in kinds', () => {
  let emu: KubeEmulator;
  const request = async (
    method: string,
    path: string,
    body: unknown,
    contentType: string,
    userAgent = 'node-fetch/1.0 (+https://github.com/bitinn/node-fetch)',
  ) => {
    const res = await fetch(`${emu.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${emu.adminToken}`,
        'content-type': contentType,
        'user-agent': userAgent,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Obj };
  };
  const apply = (manager: string, body: Obj, query = '') =>
    request('PATCH', `${PATH}/web?fieldManager=${manager}${query}`, body, 'application/apply-patch+yaml');
  const get = async () => (await request('GET', `${PATH}/web`, undefined, 'application/json')).body;

  beforeEach(async () => {
    emu = await KubeEmulator.start();
    emu.seed(emu.typeByName('namespaces'), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  });
  afterEach(() => emu.stop());

  test('apply creates the object; a second applier adds its container, merged by name', async () => {
    const created = await apply('team-a', deployment([{ name: 'app', image: 'app:1' }]));
    expect(created.status).toBe(201);
    expect(owners(created.body)).toEqual([['team-a', 'Apply']]);
    const added = await apply('team-b', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'side:1' }] } } },
    });
    expect(added.status).toBe(200);
    expect(added.body.spec.template.spec.containers.map((c: Obj) => [c.name, c.image])).toEqual([
      ['app', 'app:1'],
      ['sidecar', 'side:1'],
    ]);
    expect(
      Object.keys(fieldsOf(added.body, 'team-b')['f:spec']['f:template']['f:spec']['f:containers']),
    ).toEqual(['k:{"name":"sidecar"}']);
    // team-b stops applying its container: it owned it alone, so it goes; team-a's stays.
    const dropped = await apply('team-b', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', labels: { team: 'b' } },
    });
    expect(dropped.body.spec.template.spec.containers.map((c: Obj) => c.name)).toEqual(['app']);
    expect(dropped.body.metadata.labels).toEqual({ team: 'b' });
  });

  test('ports are keyed by containerPort and the defaulted protocol', async () => {
    await apply('team-a', deployment([{ name: 'app', image: 'app:1', ports: [{ containerPort: 8080 }] }]));
    const shared = await apply(
      'team-b',
      deployment([
        { name: 'app', image: 'app:1', ports: [{ containerPort: 8080, protocol: 'TCP', name: 'http' }] },
      ]),
    );
    expect(shared.status).toBe(200);
    expect(shared.body.spec.template.spec.containers[0].ports).toEqual([
      { containerPort: 8080, protocol: 'TCP', name: 'http' },
    ]);
    const ports = fieldsOf(shared.body, 'team-a')['f:spec']['f:template']['f:spec']['f:containers'][
      'k:{"name":"app"}'
    ]['f:ports'];
    expect(Object.keys(ports)).toEqual(['k:{"containerPort":8080,"protocol":"TCP"}']);
  });

  test('changing a field an updater set conflicts (named with its apiVersion); force takes it', async () => {
    await apply('team-a', deployment([{ name: 'app', image: 'app:1' }], { replicas: 1 }));
    const scaled = await request(
      'PATCH',
      `${PATH}/web`,
      { spec: { replicas: 3 } },
      'application/merge-patch+json',
    );
    expect(owners(scaled.body)).toEqual([
      ['team-a', 'Apply'],
      ['node-fetch', 'Update'],
    ]);
    const refused = await apply('team-a', deployment([{ name: 'app', image: 'app:2' }], { replicas: 1 }));
    expect(refused).toEqual({
      status: 409,
      body: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Apply failed with 1 conflict: conflict with "node-fetch" using apps/v1: .spec.replicas',
        reason: 'Conflict',
        details: {
          causes: [
            {
              reason: 'FieldManagerConflict',
              message: 'conflict with "node-fetch" using apps/v1',
              field: '.spec.replicas',
            },
          ],
        },
        code: 409,
      },
    });
    expect((await get()).spec.template.spec.containers[0].image).toBe('app:1');
    const forced = await apply(
      'team-a',
      deployment([{ name: 'app', image: 'app:2' }], { replicas: 1 }),
      '&force=true',
    );
    expect(forced.status).toBe(200);
    expect(forced.body.spec.replicas).toBe(1);
    // node-fetch owned nothing else: its entry is gone.
    expect(owners(forced.body)).toEqual([['team-a', 'Apply']]);
  });

  test('two conflicting fields: one line per field under the owner', async () => {
    await apply('team-a', deployment([{ name: 'app', image: 'app:1' }], { replicas: 1, minReadySeconds: 5 }));
    const refused = await apply(
      'team-b',
      deployment([{ name: 'app', image: 'app:1' }], { replicas: 2, minReadySeconds: 6 }),
    );
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(
      'Apply failed with 2 conflicts: conflicts with "team-a":\n- .spec.minReadySeconds\n- .spec.replicas',
    );
  });

  test('a field the schema lacks or a duplicated key fails the typed conversion with a reasonless 500', async () => {
    const unknown = await apply('team-a', deployment([{ name: 'app', image: 'app:1' }], { replica: 2 }));
    expect(unknown).toEqual({
      status: 500,
      body: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message:
          'failed to create typed patch object (/web; apps/v1, Kind=Deployment): .spec.replica: field not declared in schema',
        code: 500,
      },
    });
    const duplicated = await apply(
      'team-a',
      deployment([
        { name: 'app', image: 'app:1' },
        { name: 'app', image: 'app:2' },
      ]),
    );
    expect(duplicated.status).toBe(500);
    expect(duplicated.body.message).toContain(
      '.spec.template.spec.containers: duplicate entries for key [name="app"]',
    );
    expect(emu.objects('apps/deployments', NS)).toEqual([]);
  });

  test('writers are named by fieldManager or their User-Agent; [{}] untracks; the next apply adopts the rest', async () => {
    const created = await request(
      'POST',
      PATH,
      deployment([{ name: 'app', image: 'app:1' }]),
      'application/json',
      'helm/v4.1.4 (linux/amd64)',
    );
    expect(owners(created.body)).toEqual([['helm', 'Update']]);
    const reset = await request(
      'PATCH',
      `${PATH}/web`,
      { metadata: { managedFields: [{}] } },
      'application/merge-patch+json',
    );
    expect(reset.body.metadata.managedFields).toBeUndefined();
    const labelled = await request(
      'PATCH',
      `${PATH}/web?fieldManager=kubectl-label`,
      { metadata: { labels: { tier: 'web' } } },
      'application/merge-patch+json',
    );
    // An object nobody tracks is not tracked by updates either.
    expect(labelled.body.metadata.managedFields).toBeUndefined();
    const applied = await apply('team-a', deployment([{ name: 'app', image: 'app:1' }]));
    expect(owners(applied.body)).toEqual([
      ['team-a', 'Apply'],
      ['before-first-apply', 'Update'],
    ]);
    expect(fieldsOf(applied.body, 'before-first-apply', 'Update')['f:metadata']['f:labels']).toEqual({
      '.': {},
      'f:tier': {},
    });
  });

  test('apply without fieldManager, with a wrong kind, with managedFields: the PatchOptions 422 and the 400s', async () => {
    await apply('team-a', deployment([{ name: 'app', image: 'app:1' }]));
    const noManager = await request('PATCH', `${PATH}/web`, deployment([]), 'application/apply-patch+yaml');
    expect(noManager.body.message).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );
    const wrongKind = await apply('team-a', { ...deployment([]), kind: 'StatefulSet' });
    expect([wrongKind.status, wrongKind.body.message]).toEqual([
      400,
      'invalid object type: apps/v1, Kind=StatefulSet',
    ]);
    const withFields = await apply('team-a', {
      ...deployment([]),
      metadata: { name: 'web', managedFields: [] },
    });
    expect([withFields.status, withFields.body.message]).toEqual([400, 'metadata.managedFields must be nil']);
    const forcedMerge = await request(
      'PATCH',
      `${PATH}/web?force=true`,
      { spec: { replicas: 2 } },
      'application/merge-patch+json',
    );
    expect(forcedMerge.body.message).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
    );
  });
});

describe('structured merge of associative lists', () => {
  const nodes = new TypeNodes(
    (s) => s,
    () => undefined,
  );
  const keyed = nodes.of({
    type: 'array',
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['name'],
    items: { type: 'object', properties: { name: { type: 'string' }, v: { type: 'string' } } },
  });
  const set = nodes.of({ type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } });
  const atomic = nodes.of({ type: 'array', items: { type: 'string' } });
  const item = (name: string, v?: string) => (v === undefined ? { name } : { name, v });

  test('applied items come in the applied order; items only live keep their place', () => {
    expect(merge([item('a'), item('b'), item('c')], [item('c'), item('a', '1')], keyed)).toEqual([
      item('b'),
      item('c'),
      item('a', '1'),
    ]);
    expect(merge([item('a'), item('x')], [item('b'), item('a')], keyed)).toEqual([
      item('b'),
      item('a'),
      item('x'),
    ]);
    expect(merge(['a', 'b'], ['c', 'a'], set)).toEqual(['c', 'a', 'b']);
    expect(merge(['a', 'b'], ['c'], atomic)).toEqual(['c']);
  });
});
