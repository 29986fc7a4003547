/**
 * Upgrades with the real helm binary against the Kubernetes API emulator: install the previous
 * chart version, create ScheduledJobs and AlertConfigs, upgrade to the current chart and again
 * with changed values, uninstall and install again. Generated secrets, CRDs, custom resources and
 * the bundled PostgreSQL (StatefulSet, volume claim template, claim) must come through unchanged.
 */
import path from 'node:path';
import type { Obj } from '../support/kube/types';
import { packagePreviousChart, startHelmCluster, type HelmCluster } from './helmCluster';
import { CHART_DIR, REPO_ROOT } from './support';

const NS = 'jobs';
const RELEASE = 'rel';
/** Every chart before auth.mode ran on the shared token: the releases upgraded here do too. */
const TOKEN_MODE = ['--set', 'auth.mode=token'];
const EXAMPLES = path.join(REPO_ROOT, 'examples');

function secretValue(secret: Obj | undefined, key: string): string {
  const encoded = secret?.data?.[key] as string | undefined;
  if (!encoded) throw new Error(`secret ${secret?.metadata?.name} has no ${key}`);
  return Buffer.from(encoded, 'base64').toString('utf8');
}

async function helmOk(cluster: HelmCluster, args: string[]): Promise<string> {
  const r = await cluster.helm(args);
  if (!r.ok) throw new Error(`helm ${args.join(' ')} failed:\n${r.stderr}`);
  return r.stdout;
}

function uidOf(o: Obj | undefined): string | undefined {
  return o?.metadata?.uid as string | undefined;
}

function container(deployment: Obj | undefined, name: string): Obj {
  const c = (deployment?.spec?.template?.spec?.containers as Obj[] | undefined)?.find((x) => x.name === name);
  if (!c) throw new Error(`no container ${name}`);
  return c;
}

function envValue(c: Obj, name: string): string | undefined {
  return (c.env as Obj[]).find((e) => e.name === name)?.value as string | undefined;
}

describe('helm upgrade with the bundled PostgreSQL', () => {
  let cluster: HelmCluster;
  const sts = () => cluster.get('apps/statefulsets', NS, 'rel-crondeck-postgresql');
  const apiDeployment = () => cluster.get('apps/deployments', NS, 'rel-crondeck');
  const secret = (name: string) => cluster.get('secrets', NS, name);
  const crd = (name: string) =>
    cluster.get('apiextensions.k8s.io/customresourcedefinitions', undefined, name);
  const cr = (resource: string, name: string) => cluster.get(`crondeck.dev/${resource}`, NS, name);

  const before: Record<string, string | undefined> = {};

  beforeAll(async () => {
    cluster = await startHelmCluster();
    cluster.createNamespace(NS);
  });
  afterAll(() => cluster?.stop());

  test('the previous chart version installs: every object is stored and the secrets are generated', async () => {
    const previous = await packagePreviousChart(cluster, '0.0.9');
    await helmOk(cluster, ['install', RELEASE, previous, '-n', NS, ...TOKEN_MODE]);
    for (const [resource, name] of [
      ['apps/deployments', 'rel-crondeck'],
      ['apps/deployments', 'rel-crondeck-controller'],
      ['apps/statefulsets', 'rel-crondeck-postgresql'],
      ['services', 'rel-crondeck'],
      ['services', 'rel-crondeck-postgresql'],
      ['policy/poddisruptionbudgets', 'rel-crondeck'],
      ['serviceaccounts', 'rel-crondeck-api'],
      ['rbac.authorization.k8s.io/roles', 'rel-crondeck-controller'],
      ['rbac.authorization.k8s.io/rolebindings', 'rel-crondeck-controller'],
    ]) {
      expect([resource, cluster.get(resource!, NS, name!)?.metadata.labels['helm.sh/chart']]).toEqual([
        resource,
        'crondeck-0.0.9',
      ]);
    }
    expect(crd('scheduledjobs.crondeck.dev')).toBeDefined();
    expect(crd('alertconfigs.crondeck.dev')).toBeDefined();
    expect(secretValue(secret('rel-crondeck-api-token'), 'SERVICE_API_TOKEN')).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(secretValue(secret('rel-crondeck-report-secret'), 'SERVICE_REPORT_SECRET')).toMatch(
      /^[A-Za-z0-9]{64}$/,
    );
    expect(secretValue(secret('rel-crondeck-postgresql'), 'POSTGRES_PASSWORD')).toMatch(/^[A-Za-z0-9]{32}$/);
    // helm keeps the release in a Secret (sent as protobuf by its clientset).
    expect(cluster.emu.objects('secrets', NS).filter((s) => s.type === 'helm.sh/release.v1')).toHaveLength(1);
    // helm 4's defaults: every object server-side applied by "helm", validated through /openapi/v3.
    for (const o of [
      apiDeployment(),
      sts(),
      secret('rel-crondeck-api-token'),
      crd('scheduledjobs.crondeck.dev'),
    ]) {
      expect(o!.metadata.managedFields.map((e: Obj) => [e.manager, e.operation])).toContainEqual([
        'helm',
        'Apply',
      ]);
    }
    expect(cluster.emu.requestCounts()['get openapi/v3']).toBeGreaterThan(0);
  });

  test('ScheduledJobs and AlertConfigs are created with kubectl; the database claim exists', async () => {
    const r = await cluster.kubectl(['create', '-n', NS, '-f', EXAMPLES]);
    expect(r.stderr).toBe('');
    expect(cr('scheduledjobs', 'nightly-report')).toBeDefined();
    expect(cr('alertconfigs', 'nightly-report-alerts')).toBeDefined();
    // The claim the StatefulSet controller creates for the first pod (its controller is not
    // emulated): helm never owned it, so no helm command may touch it.
    cluster.emu.seed(cluster.emu.typeByName('persistentvolumeclaims'), {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        name: 'data-rel-crondeck-postgresql-0',
        namespace: NS,
        labels: sts()!.spec.selector.matchLabels,
      },
      spec: sts()!.spec.volumeClaimTemplates[0].spec,
    });
    Object.assign(before, {
      token: secretValue(secret('rel-crondeck-api-token'), 'SERVICE_API_TOKEN'),
      report: secretValue(secret('rel-crondeck-report-secret'), 'SERVICE_REPORT_SECRET'),
      password: secretValue(secret('rel-crondeck-postgresql'), 'POSTGRES_PASSWORD'),
      databaseUrl: secretValue(secret('rel-crondeck-postgresql'), 'DATABASE_URL'),
      sts: uidOf(sts()),
      claimTemplates: JSON.stringify(sts()!.spec.volumeClaimTemplates),
      claim: uidOf(cluster.get('persistentvolumeclaims', NS, 'data-rel-crondeck-postgresql-0')),
      scheduledJobsCrd: uidOf(crd('scheduledjobs.crondeck.dev')),
      alertConfigsCrd: uidOf(crd('alertconfigs.crondeck.dev')),
      job: uidOf(cr('scheduledjobs', 'nightly-report')),
      alert: uidOf(cr('alertconfigs', 'nightly-report-alerts')),
      apiDeployment: uidOf(apiDeployment()),
      apiService: uidOf(cluster.get('services', NS, 'rel-crondeck')),
    });
  });

  function expectNothingLost(): void {
    expect(secretValue(secret('rel-crondeck-api-token'), 'SERVICE_API_TOKEN')).toBe(before.token);
    expect(secretValue(secret('rel-crondeck-report-secret'), 'SERVICE_REPORT_SECRET')).toBe(before.report);
    expect(secretValue(secret('rel-crondeck-postgresql'), 'POSTGRES_PASSWORD')).toBe(before.password);
    expect(secretValue(secret('rel-crondeck-postgresql'), 'DATABASE_URL')).toBe(before.databaseUrl);
    expect(uidOf(crd('scheduledjobs.crondeck.dev'))).toBe(before.scheduledJobsCrd);
    expect(uidOf(crd('alertconfigs.crondeck.dev'))).toBe(before.alertConfigsCrd);
    expect(uidOf(cr('scheduledjobs', 'nightly-report'))).toBe(before.job);
    expect(uidOf(cr('alertconfigs', 'nightly-report-alerts'))).toBe(before.alert);
    expect(uidOf(cluster.get('persistentvolumeclaims', NS, 'data-rel-crondeck-postgresql-0'))).toBe(
      before.claim,
    );
  }

  test('upgrading to the current chart patches every object in place and loses nothing', async () => {
    cluster.emu.resetRequestCounts();
    await helmOk(cluster, [
      'upgrade',
      RELEASE,
      CHART_DIR,
      '-n',
      NS,
      '--reuse-values',
      '--set',
      'api.replicas=3',
    ]);
    expectNothingLost();
    // Patched, not replaced: the same objects, now labelled with the current chart.
    expect(uidOf(sts())).toBe(before.sts);
    expect(JSON.stringify(sts()!.spec.volumeClaimTemplates)).toBe(before.claimTemplates);
    expect(uidOf(apiDeployment())).toBe(before.apiDeployment);
    expect(uidOf(cluster.get('services', NS, 'rel-crondeck'))).toBe(before.apiService);
    expect(sts()!.metadata.labels['helm.sh/chart']).toBe('crondeck-0.1.0');
    expect(apiDeployment()!.metadata.labels['app.kubernetes.io/version']).toBe('0.1.0');
    expect(apiDeployment()!.spec.replicas).toBe(3);
    const counts = cluster.emu.requestCounts();
    expect(counts['patch statefulsets']).toBe(1);
    expect(counts['delete statefulsets'] ?? 0).toBe(0);
    expect(counts['delete secrets'] ?? 0).toBe(0);
  });

  test('no migration hook: each new pod migrates under the lock before /health lets it serve', async () => {
    // docs/kubernetes.md: migrations run when the API (and the controller) start, under an advisory lock.
    const hooks = await helmOk(cluster, ['get', 'hooks', RELEASE, '-n', NS]);
    const hookKinds = [...hooks.matchAll(/helm\.sh\/hook: (\S+)/g)].map((m) => m[1]);
    expect(hookKinds).toEqual(['test']);
    const api = apiDeployment()!;
    const serve = container(api, 'api');
    expect(serve.args[0]).toBe('serve');
    for (const probe of ['startupProbe', 'readinessProbe']) {
      expect(serve[probe].httpGet).toMatchObject({ path: '/health', port: 'http' });
    }
    // Old pods go only once new ones are ready (maxUnavailable rounds down to 0 of 3).
    expect(api.spec.strategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' },
    });
    const controller = container(
      cluster.get('apps/deployments', NS, 'rel-crondeck-controller'),
      'controller',
    );
    const databaseOf = (c: Obj) => (c.env as Obj[]).find((e) => e.name === 'DATABASE_URL')?.valueFrom;
    expect(databaseOf(controller)).toEqual(databaseOf(serve));
  });

  test('an upgrade that changes a container merges into the live pod template', async () => {
    const live = container(apiDeployment(), 'api');
    await helmOk(cluster, [
      'upgrade',
      RELEASE,
      CHART_DIR,
      '-n',
      NS,
      '--reuse-values',
      '--set',
      'settings.logLevel=debug',
    ]);
    const api = container(apiDeployment(), 'api');
    expect(envValue(api, 'SERVICE_LOG_LEVEL')).toBe('debug');
    expect((api.env as Obj[]).map((e) => e.name)).toEqual((live.env as Obj[]).map((e) => e.name));
    expect(apiDeployment()!.spec.replicas).toBe(3);
    expect(apiDeployment()!.metadata.generation).toBe(3);
    expectNothingLost();
    expect(uidOf(sts())).toBe(before.sts);
  });

  test('switching to kubernetes mode keeps the generated token aside; switching back adopts it, same value', async () => {
    const apiEnv = () => container(apiDeployment(), 'api').env as Obj[];
    const apiRole = () => cluster.get('rbac.authorization.k8s.io/roles', NS, 'rel-crondeck-api');
    const reviews = () =>
      cluster.get('rbac.authorization.k8s.io/clusterroles', undefined, 'jobs-rel-crondeck-api-reviews');
    await helmOk(cluster, [
      'upgrade',
      RELEASE,
      CHART_DIR,
      '-n',
      NS,
      '--reuse-values',
      '--set',
      'auth.mode=kubernetes',
    ]);
    expect(envValue(container(apiDeployment(), 'api'), 'SERVICE_AUTH')).toBe('kubernetes');
    expect(apiEnv().map((e) => e.name)).not.toContain('SERVICE_API_TOKEN');
    expect(reviews()).toBeDefined();
    expect(apiRole()!.rules.flatMap((r: Obj) => r.verbs)).not.toContain('create');
    // No longer the release's (helm.sh/resource-policy: keep): still there, unchanged.
    expectNothingLost();

    await helmOk(cluster, ['upgrade', RELEASE, CHART_DIR, '-n', NS, '--reuse-values', ...TOKEN_MODE]);
    expect(envValue(container(apiDeployment(), 'api'), 'SERVICE_AUTH')).toBe('token');
    expect(apiEnv().find((e) => e.name === 'SERVICE_API_TOKEN')?.valueFrom.secretKeyRef.name).toBe(
      'rel-crondeck-api-token',
    );
    expect(reviews()).toBeUndefined();
    expect(secret('rel-crondeck-api-token')!.metadata.annotations['meta.helm.sh/release-name']).toBe(RELEASE);
    expectNothingLost();
  });

  test('uninstall keeps the CRDs, the custom resources, the secrets and the database volume', async () => {
    await helmOk(cluster, ['uninstall', RELEASE, '-n', NS]);
    expect(apiDeployment()).toBeUndefined();
    expect(sts()).toBeUndefined();
    expect(cluster.get('services', NS, 'rel-crondeck')).toBeUndefined();
    expectNothingLost();
  });

  test('installing again adopts the kept secrets: same token, same database password', async () => {
    await helmOk(cluster, ['install', RELEASE, CHART_DIR, '-n', NS, ...TOKEN_MODE]);
    expectNothingLost();
    expect(sts()!.spec.volumeClaimTemplates[0].metadata.name).toBe('data');
  });
});

describe('helm upgrade with an existing DATABASE_URL secret', () => {
  let cluster: HelmCluster;

  beforeAll(async () => {
    cluster = await startHelmCluster();
    cluster.createNamespace(NS);
  });
  afterAll(() => cluster?.stop());

  test("install, upgrade and uninstall leave the user's database secret alone", async () => {
    const created = await cluster.kubectl([
      'create',
      'secret',
      'generic',
      'crondeck-database',
      '-n',
      NS,
      '--from-literal=DATABASE_URL=postgres://crondeck:pw@db.example.internal:5432/crondeck',
    ]);
    expect(created.stderr).toBe('');
    const userSecret = () => cluster.get('secrets', NS, 'crondeck-database');
    const original = JSON.stringify(userSecret());
    const values = [
      '--set',
      'postgresql.enabled=false',
      '--set',
      'database.existingSecret=crondeck-database',
      ...TOKEN_MODE,
    ];
    const previous = await packagePreviousChart(cluster, '0.0.9');
    await helmOk(cluster, ['install', RELEASE, previous, '-n', NS, ...values]);
    expect(cluster.emu.objects('apps/statefulsets', NS)).toEqual([]);
    const ref = container(cluster.get('apps/deployments', NS, 'rel-crondeck'), 'api').env.find(
      (e: Obj) => e.name === 'DATABASE_URL',
    );
    expect(ref.valueFrom.secretKeyRef).toEqual({ name: 'crondeck-database', key: 'DATABASE_URL' });
    const token = secretValue(cluster.get('secrets', NS, 'rel-crondeck-api-token'), 'SERVICE_API_TOKEN');

    await helmOk(cluster, [
      'upgrade',
      RELEASE,
      CHART_DIR,
      '-n',
      NS,
      '--reuse-values',
      '--set',
      'api.replicas=1',
      '--set',
      'ingress.enabled=true',
    ]);
    expect(cluster.get('apps/deployments', NS, 'rel-crondeck')!.spec.replicas).toBe(1);
    const ingress = cluster.get('networking.k8s.io/ingresses', NS, 'rel-crondeck');
    expect(ingress?.spec.rules[0].host).toBe('crondeck.example.com');
    expect(secretValue(cluster.get('secrets', NS, 'rel-crondeck-api-token'), 'SERVICE_API_TOKEN')).toBe(
      token,
    );
    expect(JSON.stringify(userSecret())).toBe(original);

    await helmOk(cluster, ['uninstall', RELEASE, '-n', NS]);
    expect(JSON.stringify(userSecret())).toBe(original);
    expect(cluster.emu.objects('apps/deployments', NS)).toEqual([]);
    expect(cluster.emu.objects('networking.k8s.io/ingresses', NS)).toEqual([]);
  });
});
