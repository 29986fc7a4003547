/**
 * The Helm chart: lint and render it with the default values, with every optional part on, and
 * with each file of charts/crondeck/ci/; check every rendered object against its schema and the
 * contract (names, RBAC, security); check that bad values fail with a message saying what to fix.
 * Against the Kubernetes API emulator with the real helm: the Prometheus Operator's kinds are
 * refused, saying why, where the cluster does not serve them, and CRDs helm did not install (or
 * that another release owns) install with crds.enabled=false. And what a user is told of the
 * Kubernetes version and of uninstalling.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { CONTROLLER_VARIABLES, readControllerEnvironment } from '../../src/config/controllerEnvironment';
import { readEnvironment, SERVICE_VARIABLES } from '../../src/config/environment';
import { CLEANUP_FINALIZER } from '../../src/controller/scheduledJobs/scheduledJobReconciler';
import {
  API_REVIEW_RULES,
  API_RULES,
  API_RULES_KUBERNETES_AUTH,
  CONTROLLER_RULES,
  LEASE_RULES,
  USER_EDIT_RULES,
  USER_VIEW_RULES,
  flattenRules,
  problemsOf,
  securityProblems,
  unprotectedSecrets,
} from './checkObjects';
import { startHelmCluster, type HelmCluster } from './helmCluster';
import { prometheusOperatorCrds } from './prometheusCrds';
import {
  CHART_DIR,
  REPO_ROOT,
  helm,
  helmTemplate,
  kubeTools,
  loadCrds,
  packageVersion,
  processEnv,
  sharedSettings,
  startWindowSeconds,
  type K8sObject,
} from './support';

const ALL_ON = [
  '-f',
  path.join(CHART_DIR, 'ci', 'all-on-values.yaml'),
  '--api-versions',
  'monitoring.coreos.com/v1',
];
/** The shared token of one machine (docs/security.md), as before auth.mode came. */
const TOKEN_MODE = ['--set', 'auth.mode=token'];
const CI_FILES = readdirSync(path.join(CHART_DIR, 'ci')).filter((f) => f.endsWith('.yaml'));

const VALUE_SETS: Array<[string, string[]]> = [
  ['the default values', []],
  ['every optional part switched on', ALL_ON],
  ...CI_FILES.map((f): [string, string[]] => [`ci/${f}`, ['-f', path.join(CHART_DIR, 'ci', f)]]),
];

type AnyObject = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function find(objs: K8sObject[], kind: string, name: string): AnyObject {
  const o = objs.find((x) => x.kind === kind && x.metadata.name === name);
  if (!o)
    throw new Error(`no ${kind}/${name} among ${objs.map((x) => `${x.kind}/${x.metadata.name}`).join(', ')}`);
  return o;
}

function env(container: AnyObject): Record<string, AnyObject> {
  return Object.fromEntries((container.env as AnyObject[]).map((e) => [e.name, e]));
}

beforeAll(() => {
  kubeTools();
}, 120_000);

describe.each(VALUE_SETS)('the chart with %s', (_name, args) => {
  test('passes helm lint --strict', () => {
    const lintArgs = args.filter((a, i) => a !== '--api-versions' && args[i - 1] !== '--api-versions');
    const r = helm(['lint', '--strict', CHART_DIR, ...lintArgs]);
    expect(r.stderr + r.stdout).toContain('0 chart(s) failed');
    expect(r.ok).toBe(true);
  });

  test('renders objects that match their schemas, strict about unknown fields', () => {
    const objs = helmTemplate(args);
    expect(objs.length).toBeGreaterThan(10);
    expect(problemsOf(objs, loadCrds())).toEqual([]);
  });

  test('runs every pod restricted, with a read-only root and resources', () => {
    expect(securityProblems(helmTemplate(args))).toEqual([]);
  });

  test('keeps every Secret its pods read from the jobs of the namespace (CRONDECK_OWN_SECRETS)', () => {
    expect(unprotectedSecrets(helmTemplate(args))).toEqual([]);
  });
});

describe('the chart with the default values', () => {
  const objs = () => helmTemplate();

  test('runs two API replicas behind a PodDisruptionBudget, ready on /health and live on /livez', () => {
    const all = objs();
    const api = find(all, 'Deployment', 'rel-crondeck');
    expect(api.spec.replicas).toBe(2);
    const c = api.spec.template.spec.containers[0];
    // `::`: every address of both families, so that the kubelet reaches it on an IPv6-only cluster.
    expect(c.args).toEqual(['serve', '--host', '::', '--port', '7433']);
    for (const probe of ['readinessProbe', 'startupProbe']) {
      expect(c[probe].httpGet).toEqual({ path: '/health', port: 'http' });
    }
    // Not /health, which answers 503 while the database is down: an outage would restart every replica.
    expect(c.livenessProbe.httpGet).toEqual({ path: '/livez', port: 'http' });
    expect(c.ports).toEqual([{ name: 'http', containerPort: 7433, protocol: 'TCP' }]);
    const pdb = find(all, 'PodDisruptionBudget', 'rel-crondeck');
    expect(pdb.spec.selector.matchLabels).toEqual(api.spec.selector.matchLabels);
    const svc = find(all, 'Service', 'rel-crondeck');
    expect(svc.spec.ports[0].port).toBe(7433);
    expect(svc.spec.selector).toEqual(api.spec.selector.matchLabels);
  });

  test('gives the API the time to drain and answer what is in flight before the kubelet kills it', () => {
    const spec = find(objs(), 'Deployment', 'rel-crondeck').spec.template.spec;
    const env = readEnvironment(processEnv(spec.containers[0]));
    expect(env.shutdownDrainSeconds).toBe(10);
    expect(env.shutdownGraceSeconds).toBe(10);
    // Alerts being sent get 5 s, closing takes about one more.
    expect(spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(
      env.shutdownDrainSeconds + env.shutdownGraceSeconds + 10,
    );
    // Longer than the idle timeout of AWS ALB and ingress-nginx (60 s).
    expect(env.keepAliveTimeoutSeconds).toBe(65);
    const set = helmTemplate([
      '--set',
      'api.terminationGracePeriodSeconds=100',
      '--set',
      'api.shutdownDrainSeconds=30',
      '--set',
      'api.shutdownGraceSeconds=20',
      '--set',
      'api.keepAliveTimeoutSeconds=620',
    ]);
    const setSpec = find(set, 'Deployment', 'rel-crondeck').spec.template.spec;
    expect(setSpec.terminationGracePeriodSeconds).toBe(100);
    expect(readEnvironment(processEnv(setSpec.containers[0]))).toMatchObject({
      shutdownDrainSeconds: 30,
      shutdownGraceSeconds: 20,
      keepAliveTimeoutSeconds: 620,
    });
  });

  test('leaves the budget out where it would refuse every eviction (one replica), so drains go on', () => {
    const budgets = (...set: string[]) =>
      helmTemplate(set.flatMap((value) => ['--set', value])).filter((o) => o.kind === 'PodDisruptionBudget');
    expect(budgets('api.replicas=1')).toEqual([]);
    expect(budgets('api.replicas=3', 'api.podDisruptionBudget.minAvailable=3')).toEqual([]);
    expect(budgets('api.replicas=3', 'api.podDisruptionBudget.minAvailable=2')).toHaveLength(1);
    expect(budgets('api.replicas=1', 'api.podDisruptionBudget.minAvailable=50%')).toHaveLength(1);
  });

  test('lets both programs wait for the database at start, and migrate, before a probe restarts them', () => {
    for (const name of ['rel-crondeck', 'rel-crondeck-controller']) {
      const c = find(objs(), 'Deployment', name).spec.template.spec.containers[0];
      // A minute for the migrations of a first start, beyond the wait.
      const needed = readEnvironment(processEnv(c)).databaseWaitSeconds + 60;
      expect({ name, enough: startWindowSeconds(c) >= needed }).toEqual({ name, enough: true });
    }
  });

  test('gives the API the variables of the contract', () => {
    const c = find(objs(), 'Deployment', 'rel-crondeck').spec.template.spec.containers[0];
    const e = env(c);
    expect(e.SERVICE_RUNTIME!.value).toBe('kubernetes');
    expect(e.CRONDECK_WATCH_NAMESPACE!.value).toBe('jobs');
    expect(e.DATABASE_URL!.valueFrom.secretKeyRef).toEqual({
      name: 'rel-crondeck-postgresql',
      key: 'DATABASE_URL',
    });
    // Each caller's own Kubernetes token, and no shared one.
    expect(e.SERVICE_AUTH!.value).toBe('kubernetes');
    expect(e.SERVICE_API_TOKEN).toBeUndefined();
    expect(e.SERVICE_REPORT_SECRET!.valueFrom.secretKeyRef).toEqual({
      name: 'rel-crondeck-report-secret',
      key: 'SERVICE_REPORT_SECRET',
    });
    for (const name of ['SERVICE_TIMEZONE', 'SERVICE_RETENTION_DAYS', 'SERVICE_LOG_LEVEL']) {
      expect(e[name]).toBeDefined();
    }
    expect(e.SERVICE_SMTP_HOST).toBeUndefined();
    // No webhook to the link-local ranges, where clouds serve instance metadata and its credentials.
    const denied = readEnvironment({ SERVICE_WEBHOOK_DENY_CIDRS: e.SERVICE_WEBHOOK_DENY_CIDRS?.value });
    expect(denied.webhookDenyCidrs).toEqual(['169.254.0.0/16', 'fe80::/10', 'fd00:ec2::254/128']);
    // Every variable the chart sets is one the program reads.
    const read = new Set([...SERVICE_VARIABLES, ...CONTROLLER_VARIABLES, 'NODE_OPTIONS', 'MALLOC_ARENA_MAX']);
    for (const all of [objs(), helmTemplate(TOKEN_MODE)]) {
      for (const name of ['rel-crondeck', 'rel-crondeck-controller']) {
        const names = Object.keys(env(find(all, 'Deployment', name).spec.template.spec.containers[0]));
        expect(names.filter((n) => !read.has(n))).toEqual([]);
      }
    }
  });

  test('gives the controller the settings the API reads: the same time zone, retention, webhook rules and SMTP', () => {
    const all = helmTemplate([...ALL_ON, '--set', 'settings.timezone=Europe/Berlin']);
    const [api, controller] = ['rel-crondeck', 'rel-crondeck-controller'].map((name) =>
      sharedSettings(find(all, 'Deployment', name).spec.template.spec.containers[0]),
    );
    expect(api!.defaultTimeZone).toBe('Europe/Berlin');
    expect(api!.smtp?.host).toBe('smtp.example.com');
    expect(controller).toEqual(api);
  });

  test('caps each Node heap below its container’s memory limit, or leaves it when asked', () => {
    const all = objs();
    for (const name of ['rel-crondeck', 'rel-crondeck-controller']) {
      const c = find(all, 'Deployment', name).spec.template.spec.containers[0];
      const oldSpace = /--max-old-space-size=(\d+)/.exec(env(c).NODE_OPTIONS!.value)![1]!;
      expect(Number(oldSpace) * 1.4).toBeLessThan(parseInt(c.resources.limits.memory, 10));
    }
    const uncapped = helmTemplate(['--set', 'controller.nodeOptions=']);
    const c = find(uncapped, 'Deployment', 'rel-crondeck-controller').spec.template.spec.containers[0];
    expect(env(c).NODE_OPTIONS).toBeUndefined();
  });

  test('runs one controller with leader election, health on 8081, reporting to the Service', () => {
    const ctl = find(objs(), 'Deployment', 'rel-crondeck-controller');
    expect(ctl.spec.replicas).toBe(1);
    const c = ctl.spec.template.spec.containers[0];
    expect(c.args).toEqual(['controller']);
    expect(c.readinessProbe.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
    expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
    expect(c.ports[0].containerPort).toBe(8081);
    const e = env(c);
    expect(e.CRONDECK_LEADER_ELECTION!.value).toBe('true');
    expect(e.CRONDECK_IMAGE!.value).toBe(c.image);
    expect(e.CRONDECK_REPORT_URL!.value).toBe('http://rel-crondeck.jobs.svc:7433');
    expect(e.CRONDECK_WATCH_NAMESPACE!.value).toBe('jobs');
    expect(e.POD_NAME!.valueFrom.fieldRef.fieldPath).toBe('metadata.name');
    expect(e.POD_NAMESPACE!.valueFrom.fieldRef.fieldPath).toBe('metadata.namespace');
    expect(e.DATABASE_URL).toBeDefined();
    expect(e.SERVICE_REPORT_SECRET!.valueFrom.secretKeyRef.name).toBe('rel-crondeck-report-secret');
  });

  test('uses the image ghcr.io/crondeck/crondeck:<appVersion>, and appVersion is the package version', () => {
    const chart = YAML.parse(readFileSync(path.join(CHART_DIR, 'Chart.yaml'), 'utf8')) as {
      appVersion: string;
    };
    expect(chart.appVersion).toBe(packageVersion());
    for (const name of ['rel-crondeck', 'rel-crondeck-controller']) {
      const c = find(objs(), 'Deployment', name).spec.template.spec.containers[0];
      expect(c.image).toBe(`ghcr.io/crondeck/crondeck:${chart.appVersion}`);
    }
  });

  test('grants exactly the contract RBAC: the programs’ Roles in the release namespace', () => {
    const all = objs();
    expect(flattenRules(find(all, 'Role', 'rel-crondeck-api').rules)).toEqual(API_RULES_KUBERNETES_AUTH);
    expect(flattenRules(find(all, 'Role', 'rel-crondeck-controller').rules)).toEqual(CONTROLLER_RULES);
    expect(flattenRules(find(all, 'Role', 'rel-crondeck-controller-leader-election').rules)).toEqual(
      LEASE_RULES,
    );
    for (const [binding, sa] of [
      ['rel-crondeck-api', 'rel-crondeck-api'],
      ['rel-crondeck-controller', 'rel-crondeck-controller'],
      ['rel-crondeck-controller-leader-election', 'rel-crondeck-controller'],
    ]) {
      const rb = find(all, 'RoleBinding', binding!);
      expect(rb.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: binding });
      expect(rb.subjects).toEqual([{ kind: 'ServiceAccount', name: sa, namespace: 'jobs' }]);
      find(all, 'ServiceAccount', sa!);
    }
    expect(find(all, 'Deployment', 'rel-crondeck').spec.template.spec.serviceAccountName).toBe(
      'rel-crondeck-api',
    );
    expect(find(all, 'Deployment', 'rel-crondeck-controller').spec.template.spec.serviceAccountName).toBe(
      'rel-crondeck-controller',
    );
  });

  test('grants cluster-wide only the API’s token and access reviews, and the ClusterRoles for people', () => {
    const all = objs();
    expect(
      all
        .filter((o) => o.kind.startsWith('Cluster'))
        .map((o) => `${o.kind}/${o.metadata.name}`)
        .sort(),
    ).toEqual([
      'ClusterRole/jobs-rel-crondeck-api-reviews',
      'ClusterRole/jobs-rel-crondeck-edit',
      'ClusterRole/jobs-rel-crondeck-view',
      'ClusterRoleBinding/jobs-rel-crondeck-api-reviews',
    ]);
    // TokenReview and SubjectAccessReview are cluster-scoped: a Role could not grant them.
    expect(flattenRules(find(all, 'ClusterRole', 'jobs-rel-crondeck-api-reviews').rules)).toEqual(
      API_REVIEW_RULES,
    );
    const binding = find(all, 'ClusterRoleBinding', 'jobs-rel-crondeck-api-reviews');
    expect(binding.roleRef).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: 'jobs-rel-crondeck-api-reviews',
    });
    expect(binding.subjects).toEqual([
      { kind: 'ServiceAccount', name: 'rel-crondeck-api', namespace: 'jobs' },
    ]);
  });

  test('aggregates the people’s ClusterRoles so that view ⊂ edit ⊂ admin, each labelled for every role it joins', () => {
    const all = objs();
    const view = find(all, 'ClusterRole', 'jobs-rel-crondeck-view');
    const edit = find(all, 'ClusterRole', 'jobs-rel-crondeck-edit');
    expect(flattenRules(view.rules)).toEqual(USER_VIEW_RULES);
    expect(flattenRules(edit.rules)).toEqual(USER_EDIT_RULES);
    expect(USER_VIEW_RULES.filter((rule) => !USER_EDIT_RULES.includes(rule))).toEqual([]);
    const aggregatedInto = (role: AnyObject) =>
      Object.entries(role.metadata.labels as Record<string, string>)
        .filter(
          ([label, value]) => label.startsWith('rbac.authorization.k8s.io/aggregate-to-') && value === 'true',
        )
        .map(([label]) => label.slice('rbac.authorization.k8s.io/aggregate-to-'.length))
        .sort();
    expect(aggregatedInto(view)).toEqual(['admin', 'edit', 'view']);
    expect(aggregatedInto(edit)).toEqual(['admin', 'edit']);
  });

  test('generates the report secret, and no API token: kubernetes mode reads none', () => {
    const all = objs();
    expect(
      all.find((o) => o.kind === 'Secret' && o.metadata.name === 'rel-crondeck-api-token'),
    ).toBeUndefined();
    const report = Buffer.from(
      find(all, 'Secret', 'rel-crondeck-report-secret').data.SERVICE_REPORT_SECRET,
      'base64',
    );
    expect(report.toString()).toMatch(/^[A-Za-z0-9]{64}$/);
    // The lookup that keeps them on upgrade is in the template (helm template cannot reach a cluster).
    expect(readFileSync(path.join(CHART_DIR, 'templates', '_helpers.tpl'), 'utf8')).toMatch(
      /lookup "v1" "Secret" \$root\.Release\.Namespace \$name/,
    );
  });

  test('bundles a PostgreSQL whose DATABASE_URL matches its password and Service, kept on uninstall', () => {
    const all = objs();
    const secret = find(all, 'Secret', 'rel-crondeck-postgresql');
    expect(secret.metadata.annotations['helm.sh/resource-policy']).toBe('keep');
    const password = Buffer.from(secret.data.POSTGRES_PASSWORD, 'base64').toString();
    const url = new URL(Buffer.from(secret.data.DATABASE_URL, 'base64').toString());
    expect(url.password).toBe(password);
    expect(url.hostname).toBe('rel-crondeck-postgresql.jobs.svc');
    expect(url.pathname).toBe('/crondeck');
    const sts = find(all, 'StatefulSet', 'rel-crondeck-postgresql');
    expect(sts.spec.replicas).toBe(1);
    expect(sts.spec.volumeClaimTemplates[0].spec.resources.requests.storage).toBe('8Gi');
    find(all, 'Service', 'rel-crondeck-postgresql');
  });

  test('sizes the bundled PostgreSQL’s connections for every replica, one more of each in a rolling update', () => {
    // What each process may open (src/store/database.ts, docs/operations.md): two pools of 10, and
    // for the API the session that holds its lock and the one that listens for list changes.
    const perApi = 2 * 10 + 2;
    const perController = 2 * 10;
    for (const [api, controller] of [
      [2, 1],
      [4, 2],
      [8, 3],
    ] as const) {
      const sts = find(
        helmTemplate(['--set', `api.replicas=${api}`, '--set', `controller.replicas=${controller}`]),
        'StatefulSet',
        'rel-crondeck-postgresql',
      );
      const args = sts.spec.template.spec.containers[0].args as string[];
      const max = Number(/^max_connections=(\d+)$/.exec(args[args.indexOf('-c') + 1]!)![1]);
      expect(max).toBeGreaterThanOrEqual((api + 1) * perApi + (controller + 1) * perController);
    }
  });

  test('renders no Ingress, ServiceMonitor, PrometheusRule or dashboard unless asked', () => {
    const kinds = objs().map((o) => o.kind);
    for (const kind of ['Ingress', 'ServiceMonitor', 'PrometheusRule', 'ConfigMap'])
      expect(kinds).not.toContain(kind);
  });

  test('has a helm test pod that checks /health through the Service', () => {
    const pod = find(objs(), 'Pod', 'rel-crondeck-test-health');
    expect(pod.metadata.annotations['helm.sh/hook']).toBe('test');
    expect(pod.spec.containers[0].command.at(-1)).toBe('http://rel-crondeck.jobs.svc:7433/health');
    expect(pod.spec.containers[0].command[0]).toBe('curl');
  });

  test('prints NOTES with how to sign in and the migration note', () => {
    const r = helm(['install', 'rel', CHART_DIR, '--namespace', 'jobs', '--dry-run=client']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('TOKEN=$(kubectl -n <namespace> create token <service account>)');
    expect(r.stdout).toContain('curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:7433/api/session');
    expect(r.stdout).toContain('docs/security.md');
    expect(r.stdout).not.toContain('get secret rel-crondeck-api-token');
    expect(r.stdout).toContain('needs no hook');
  });
});

describe('the chart with options', () => {
  test('renders the ServiceMonitor when asked, scraping the API and the controller', () => {
    const withIt = helmTemplate([
      '--set',
      'serviceMonitor.enabled=true',
      '--api-versions',
      'monitoring.coreos.com/v1',
    ]);
    const sm = find(withIt, 'ServiceMonitor', 'rel-crondeck');
    expect(sm.spec.endpoints.map((e: AnyObject) => `${e.port} ${e.path}`)).toEqual([
      'http /metrics',
      'metrics /metrics',
    ]);
    const services = withIt.filter((o) => o.kind === 'Service');
    for (const port of ['http', 'metrics']) {
      expect(services.some((s) => (s.spec as AnyObject).ports.some((p: AnyObject) => p.name === port))).toBe(
        true,
      );
    }
  });

  test('with rbac.clusterWide uses ClusterRoles, watches every namespace and keeps the Lease namespaced', () => {
    const all = helmTemplate(['--set', 'rbac.clusterWide=true']);
    expect(flattenRules(find(all, 'ClusterRole', 'jobs-rel-crondeck-api').rules)).toEqual(
      API_RULES_KUBERNETES_AUTH,
    );
    expect(flattenRules(find(all, 'ClusterRole', 'jobs-rel-crondeck-api-reviews').rules)).toEqual(
      API_REVIEW_RULES,
    );
    expect(
      flattenRules(
        find(
          helmTemplate(['--set', 'rbac.clusterWide=true', ...TOKEN_MODE]),
          'ClusterRole',
          'jobs-rel-crondeck-api',
        ).rules,
      ),
    ).toEqual(API_RULES);
    expect(flattenRules(find(all, 'ClusterRole', 'jobs-rel-crondeck-controller').rules)).toEqual(
      CONTROLLER_RULES,
    );
    expect(find(all, 'ClusterRoleBinding', 'jobs-rel-crondeck-controller').roleRef.kind).toBe('ClusterRole');
    expect(all.filter((o) => o.kind === 'Role').map((o) => o.metadata.name)).toEqual([
      'rel-crondeck-controller-leader-election',
    ]);
    const [api, controller] = ['rel-crondeck', 'rel-crondeck-controller'].map((name) =>
      processEnv(find(all, 'Deployment', name).spec.template.spec.containers[0]),
    );
    // As the programs read their variables: null is every namespace; the Lease stays at home.
    expect(readEnvironment(api!).kubernetes).toEqual({ namespace: 'jobs', watchNamespace: null });
    expect(readControllerEnvironment(controller!)).toMatchObject({
      watchNamespace: null,
      homeNamespace: 'jobs',
    });
  });

  test("has job pods pull as the chart's own pods do: its image.pullPolicy and imagePullSecrets", () => {
    const controllerOf = (args: string[]) =>
      readControllerEnvironment(
        processEnv(
          find(helmTemplate(args), 'Deployment', 'rel-crondeck-controller').spec.template.spec.containers[0],
        ),
      );
    expect(controllerOf([])).toMatchObject({ imagePullPolicy: 'IfNotPresent', imagePullSecrets: [] });
    const pulling = ['--set', 'image.pullPolicy=Never'];
    pulling.push('--set', 'imagePullSecrets[0].name=regcred', '--set', 'imagePullSecrets[1].name=mirror');
    expect(controllerOf(pulling)).toMatchObject({
      imagePullPolicy: 'Never',
      imagePullSecrets: ['regcred', 'mirror'],
    });
  });

  test('keeps the cluster’s review answers for auth.cacheSeconds in kubernetes mode (SERVICE_AUTH_CACHE_SECONDS)', () => {
    const api = (...set: string[]) =>
      find(helmTemplate(set.flatMap((value) => ['--set', value])), 'Deployment', 'rel-crondeck').spec.template
        .spec.containers[0];
    expect(readEnvironment(processEnv(api())).authCacheSeconds).toBe(10);
    expect(env(api()).SERVICE_AUTH_CACHE_SECONDS!.value).toBe('10');
    for (const seconds of [0, 60]) {
      expect(readEnvironment(processEnv(api(`auth.cacheSeconds=${seconds}`))).authCacheSeconds).toBe(seconds);
    }
    // Token mode asks the cluster nothing: the value is not rendered.
    expect(env(api('auth.mode=token', 'auth.cacheSeconds=30')).SERVICE_AUTH_CACHE_SECONDS).toBeUndefined();
  });

  test('in token mode (auth.mode=token) reads the shared token, generated and kept as before, with the API’s own rules', () => {
    const all = helmTemplate(TOKEN_MODE);
    const e = env(find(all, 'Deployment', 'rel-crondeck').spec.template.spec.containers[0]);
    expect(e.SERVICE_AUTH!.value).toBe('token');
    expect(e.SERVICE_API_TOKEN!.valueFrom.secretKeyRef).toEqual({
      name: 'rel-crondeck-api-token',
      key: 'SERVICE_API_TOKEN',
    });
    const secret = find(all, 'Secret', 'rel-crondeck-api-token');
    expect(Buffer.from(secret.data.SERVICE_API_TOKEN, 'base64').toString()).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(secret.metadata.annotations['helm.sh/resource-policy']).toBe('keep');
    // The lookup that keeps it on upgrade is in the template (helm template cannot reach a cluster).
    expect(readFileSync(path.join(CHART_DIR, 'templates', '_helpers.tpl'), 'utf8')).toMatch(
      /lookup "v1" "Secret" \$root\.Release\.Namespace \$name/,
    );
    // Today's rules: the API writes the cluster itself, and asks no reviews.
    expect(flattenRules(find(all, 'Role', 'rel-crondeck-api').rules)).toEqual(API_RULES);
    expect(all.filter((o) => o.metadata.name.endsWith('-api-reviews'))).toEqual([]);
    const notes = helm([
      'install',
      'rel',
      CHART_DIR,
      '--namespace',
      'jobs',
      '--dry-run=client',
      ...TOKEN_MODE,
    ]);
    expect(notes.stdout).toContain('kubectl -n jobs get secret rel-crondeck-api-token');
    expect(notes.stdout).not.toContain('create token');
  });

  test('keeps the ClusterRoles for people out of view, edit and admin, or leaves them out, when asked', () => {
    const roles = (...set: string[]) =>
      helmTemplate(set.flatMap((value) => ['--set', value])).filter((o) =>
        /-(view|edit)$/.test(o.metadata.name),
      );
    const unaggregated = roles('rbac.userRoles.aggregate=false');
    expect(unaggregated.map((o) => o.metadata.name)).toEqual([
      'jobs-rel-crondeck-view',
      'jobs-rel-crondeck-edit',
    ]);
    for (const role of unaggregated) {
      expect(
        Object.keys(role.metadata.labels ?? {}).filter((label) => label.includes('aggregate-to')),
      ).toEqual([]);
    }
    expect(roles('rbac.userRoles.create=false')).toEqual([]);
  });

  test('names its cluster-scoped objects after the release namespace too: same-named releases never clash', () => {
    const clusterScoped = (namespace: string) =>
      helmTemplate(['--namespace', namespace])
        .filter((o) => o.kind.startsWith('Cluster'))
        .map((o) => `${o.kind}/${o.metadata.name}`);
    const inA = clusterScoped('team-a');
    const inB = clusterScoped('team-b');
    expect(inA.length).toBeGreaterThan(0);
    expect(inA.filter((name) => inB.includes(name))).toEqual([]);
  });

  test('takes the database, the token and the report secret from existing Secrets and generates none', () => {
    const all = helmTemplate(['-f', path.join(CHART_DIR, 'ci', 'external-database-values.yaml')]);
    expect(all.filter((o) => o.kind === 'Secret' || o.kind === 'StatefulSet')).toEqual([]);
    const e = env(find(all, 'Deployment', 'rel-crondeck').spec.template.spec.containers[0]);
    expect(e.DATABASE_URL!.valueFrom.secretKeyRef).toEqual({
      name: 'crondeck-database',
      key: 'DATABASE_URL',
    });
    expect(e.SERVICE_API_TOKEN!.valueFrom.secretKeyRef).toEqual({
      name: 'crondeck-secrets',
      key: 'api-token',
    });
    expect(e.SERVICE_REPORT_SECRET!.valueFrom.secretKeyRef).toEqual({
      name: 'crondeck-secrets',
      key: 'report-secret',
    });
    expect(e.CRONDECK_WATCH_NAMESPACE!.value).toBe('jobs');
    expect(find(all, 'Role', 'rel-crondeck-api').metadata.namespace).toBe('jobs');
  });

  test('passes SMTP settings with the password from a Secret', () => {
    const all = helmTemplate(ALL_ON);
    const e = env(find(all, 'Deployment', 'rel-crondeck').spec.template.spec.containers[0]);
    expect(e.SERVICE_SMTP_HOST!.value).toBe('smtp.example.com');
    expect(e.SERVICE_SMTP_PORT!.value).toBe('465');
    expect(e.SERVICE_SMTP_SECURE!.value).toBe('true');
    expect(e.SERVICE_SMTP_PASSWORD!.valueFrom.secretKeyRef).toEqual({
      name: 'crondeck-smtp',
      key: 'SERVICE_SMTP_PASSWORD',
    });
    expect(e.SERVICE_WEBHOOK_DENY_CIDRS!.value).toBe('169.254.0.0/16,10.0.0.0/8');
  });

  test('ships the Grafana dashboard with the sidecar label, querying only metrics that exist', () => {
    const all = helmTemplate(ALL_ON);
    const cm = find(all, 'ConfigMap', 'rel-crondeck-dashboard');
    expect(cm.metadata.labels.grafana_dashboard).toBe('1');
    expect(cm.metadata.namespace).toBe('monitoring');
    const dashboard = JSON.parse(cm.data['crondeck.json']) as {
      panels: Array<{ title: string; targets?: AnyObject[] }>;
    };
    expect(dashboard.panels.map((p) => p.title)).toEqual([
      'Runs by status',
      'Failure rate',
      'Mean run duration (latest 1000 runs)',
      'Scheduler paused',
      'Jobs',
      'Alert deliveries',
      'Controller reconciles by result',
      'Controller work queue depth',
    ]);
    const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => String(t.expr)));
    expect(unknownMetrics(exprs)).toEqual([]);
  });

  test('has alerting rules for failing runs, a long pause, missed slots and a controller that stopped reconciling', () => {
    const rule = find(helmTemplate(ALL_ON), 'PrometheusRule', 'rel-crondeck');
    const rules = rule.spec.groups[0].rules as AnyObject[];
    expect(rules.map((r) => r.alert)).toEqual([
      'CrondeckExecutionsFailing',
      'CrondeckSchedulerPausedTooLong',
      'CrondeckSlotsMissed',
      'CrondeckControllerNotReconciling',
    ]);
    expect(rules[2]!.expr).toContain('outcome="missed"}[15m]');
    expect(unknownMetrics(rules.map((r) => String(r.expr)))).toEqual([]);
    expect(rules[1]!.for).toBe('1h');
  });

  test('leaves the CRDs out with crds.enabled=false', () => {
    const kinds = helmTemplate(['--set', 'crds.enabled=false']).map((o) => o.kind);
    expect(kinds).not.toContain('CustomResourceDefinition');
  });
});

describe('bad values fail with a message that says what to fix', () => {
  test.each([
    [['--set', 'api.replicas=-1'], "at '/api/replicas': minimum: got -1, want 0"],
    [['--set', 'controller.replicas=two'], "at '/controller/replicas'"],
    [
      ['--set', 'image.pullPolicy=Sometimes'],
      "at '/image/pullPolicy': value must be one of 'Always', 'IfNotPresent', 'Never'",
    ],
    [['--set', 'settings.logLevel=loud'], "at '/settings/logLevel'"],
    [['--set', 'replicas=2'], "additional properties 'replicas' not allowed"],
    [
      ['--set', 'postgresql.enabled=false'],
      'Set database.existingSecret to the name of a Secret holding DATABASE_URL (postgres://user:password@host:5432/db), or set postgresql.enabled=true',
    ],
    [['--set', 'database.existingSecret=mine'], 'choose one: set postgresql.enabled=false'],
    [
      ['--set', 'api.terminationGracePeriodSeconds=25'],
      'api.terminationGracePeriodSeconds (25) must be at least api.shutdownDrainSeconds + api.shutdownGraceSeconds + 10 (30)',
    ],
    [['--set', 'api.keepAliveTimeoutSeconds=0'], "at '/api/keepAliveTimeoutSeconds': minimum: got 0, want 1"],
    [['--set', 'api.shutdownDrainSeconds=-1'], "at '/api/shutdownDrainSeconds'"],
    [['--set', 'auth.mode=oidc'], "at '/auth/mode': value must be one of 'kubernetes', 'token'"],
    [['--set', 'auth.cacheSeconds=61'], "at '/auth/cacheSeconds': maximum: got 61, want 60"],
    [['--set', 'auth.cacheSeconds=-1'], "at '/auth/cacheSeconds': minimum: got -1, want 0"],
    // What an upgrade with --reuse-values from a chart without auth.mode renders with.
    [
      ['--set', 'auth=null'],
      "auth.mode is not set: set --set auth.mode=kubernetes (each caller's own Kubernetes token",
    ],
  ])('helm template %j', (args, message) => {
    const r = helm(['template', 'rel', CHART_DIR, ...args]);
    expect(r.ok).toBe(false);
    expect(r.stderr).toContain(message);
  });
});

/** A Prometheus Operator kind the chart renders, and the value that asks for it. */
const OPERATOR_KINDS: Array<[string, string]> = [
  ['serviceMonitor.enabled', 'ServiceMonitor'],
  ['prometheusRule.enabled', 'PrometheusRule'],
];

/** The message a cluster without the kind gets (templates/_monitoring.tpl). */
const notServed = (value: string, kind: string) =>
  `${value}=true, but this cluster does not serve ${kind} (monitoring.coreos.com/v1): install the ` +
  `Prometheus Operator's CRDs first (kube-prometheus-stack, or the prometheus-operator-crds chart), or ` +
  `set ${value}=false`;

/** As helm has a cluster's API list from its discovery: with every served kind (`v1/Namespace`). */
const clusterServing = (...kinds: string[]) => [
  '--api-versions',
  ['v1', 'v1/Namespace', 'apps/v1', 'apps/v1/Deployment', ...kinds].join(','),
];
/** As Argo CD renders for a cluster: its group versions (`apiregistration.k8s.io/v1`), no kinds. */
const argoCdFor = (...groupVersions: string[]) => [
  '--api-versions',
  ['v1', 'apiregistration.k8s.io/v1', 'apps/v1', ...groupVersions].join(','),
];

describe('the Prometheus Operator kinds', () => {
  test.each(OPERATOR_KINDS)(
    '%s=true renders a %s where nothing is known of the cluster (helm template, helm lint)',
    (value, kind) => {
      expect(helmTemplate(['--set', `${value}=true`]).map((o) => o.kind)).toContain(kind);
      const lint = helm(['lint', '--strict', CHART_DIR, '--set', `${value}=true`]);
      expect(lint.stderr + lint.stdout).toContain('0 chart(s) failed');
    },
  );

  test.each(OPERATOR_KINDS)(
    '%s=true fails for a cluster that does not serve the %s kind, saying what to install or turn off',
    (value, kind) => {
      for (const without of [clusterServing(), argoCdFor()]) {
        const r = helm(['template', 'rel', CHART_DIR, '--set', `${value}=true`, ...without]);
        expect([without, r.ok, r.stderr]).toEqual([
          without,
          false,
          expect.stringContaining(notServed(value, kind)),
        ]);
      }
      for (const serving of [
        clusterServing(`monitoring.coreos.com/v1/${kind}`),
        argoCdFor('monitoring.coreos.com/v1'),
      ]) {
        expect(helmTemplate(['--set', `${value}=true`, ...serving]).map((o) => o.kind)).toContain(kind);
      }
    },
  );

  describe('against a cluster (the real helm and the Kubernetes API emulator)', () => {
    let cluster: HelmCluster;
    const stored = (resource: string) =>
      cluster.get(`monitoring.coreos.com/${resource}`, 'jobs', 'rel-crondeck');

    /** `kubectl create` of the operator's CRDs of these kinds, as its chart would install them. */
    async function installOperatorCrds(kinds: string[]): Promise<void> {
      const crds = prometheusOperatorCrds().filter((crd) =>
        kinds.includes((crd as AnyObject).spec.names.kind),
      );
      expect(crds).toHaveLength(kinds.length);
      const file = path.join(cluster.dir, `operator-crds-${kinds.join('-')}.yaml`);
      writeFileSync(file, crds.map((crd) => YAML.stringify(crd)).join('---\n'));
      const r = await cluster.kubectl(['create', '-f', file]);
      if (!r.ok) throw new Error(`kubectl create -f ${file} failed:\n${r.stderr}`);
    }

    beforeAll(async () => {
      cluster = await startHelmCluster();
      cluster.createNamespace('jobs');
    });
    afterAll(() => cluster?.stop());

    test('without the operator’s CRDs, helm install fails with the message and creates nothing', async () => {
      for (const [value, kind] of OPERATOR_KINDS) {
        const r = await cluster.helm(['install', 'rel', CHART_DIR, '-n', 'jobs', '--set', `${value}=true`]);
        expect([r.ok, r.stderr]).toEqual([false, expect.stringContaining(notServed(value, kind))]);
      }
      expect(cluster.get('apps/deployments', 'jobs', 'rel-crondeck')).toBeUndefined();
      expect((await cluster.helm(['list', '-a', '-n', 'jobs', '-q'])).stdout.trim()).toBe('');
    }, 60_000);

    test('each kind is checked: with the ServiceMonitor CRD alone, the PrometheusRule is refused', async () => {
      await installOperatorCrds(['ServiceMonitor']);
      const dryRun = ['install', 'rel', CHART_DIR, '-n', 'jobs', '--dry-run=server'];
      const monitor = await cluster.helm([...dryRun, '--set', 'serviceMonitor.enabled=true']);
      expect([monitor.ok, monitor.stderr]).toEqual([true, '']);
      expect(monitor.stdout).toContain('kind: ServiceMonitor');
      const rule = await cluster.helm([...dryRun, '--set', 'prometheusRule.enabled=true']);
      expect([rule.ok, rule.stderr]).toEqual([
        false,
        expect.stringContaining(notServed('prometheusRule.enabled', 'PrometheusRule')),
      ]);
    }, 60_000);

    test('with them, helm install creates the ServiceMonitor and the PrometheusRule', async () => {
      await installOperatorCrds(['PrometheusRule']);
      const r = await cluster.helm([
        'install',
        'rel',
        CHART_DIR,
        '-n',
        'jobs',
        '--set',
        'serviceMonitor.enabled=true',
        '--set',
        'prometheusRule.enabled=true',
      ]);
      expect([r.ok, r.stderr]).toEqual([true, '']);
      expect(stored('servicemonitors')?.kind).toBe('ServiceMonitor');
      expect(stored('prometheusrules')?.kind).toBe('PrometheusRule');
    }, 60_000);
  });
});

describe('CRDs already in the cluster', () => {
  const crd = (cluster: HelmCluster, name: string) =>
    cluster.get('apiextensions.k8s.io/customresourcedefinitions', undefined, name);
  const releaseOf = (cluster: HelmCluster) =>
    crd(cluster, 'scheduledjobs.crondeck.dev')?.metadata.annotations?.['meta.helm.sh/release-name'];
  const install = (cluster: HelmCluster, release: string, namespace: string, ...args: string[]) =>
    cluster.helm(['install', release, CHART_DIR, '-n', namespace, ...args]);
  // Helm names the first of them it meets.
  const notImported = expect.stringMatching(
    /CustomResourceDefinition "(scheduledjobs|alertconfigs)\.crondeck\.dev" in namespace "" exists and cannot be imported into the current release/,
  );

  let cluster: HelmCluster;
  beforeEach(async () => {
    cluster = await startHelmCluster();
    for (const ns of ['jobs', 'team-b']) cluster.createNamespace(ns);
  });
  afterEach(() => cluster?.stop());

  test('after kubectl apply -f crds/, helm install needs crds.enabled=false (or --take-ownership)', async () => {
    const applied = await cluster.kubectl(['apply', '-f', 'crds/']);
    expect(applied.ok).toBe(true);
    const refused = await install(cluster, 'rel', 'jobs');
    expect([refused.ok, refused.stderr]).toEqual([false, notImported]);

    const installed = await install(cluster, 'rel', 'jobs', '--set', 'crds.enabled=false');
    expect([installed.ok, installed.stderr]).toEqual([true, '']);
    expect(releaseOf(cluster)).toBeUndefined();

    // Or the release takes them over, and upgrades them from then on.
    expect((await cluster.helm(['uninstall', 'rel', '-n', 'jobs'])).ok).toBe(true);
    const taken = await install(cluster, 'rel', 'jobs', '--take-ownership');
    expect([taken.ok, taken.stderr]).toEqual([true, '']);
    expect(releaseOf(cluster)).toBe('rel');
  }, 90_000);

  test('a second release in another namespace installs with crds.enabled=false; the first owns the CRDs', async () => {
    const first = await install(cluster, 'rel', 'jobs');
    expect([first.ok, first.stderr]).toEqual([true, '']);
    const refused = await install(cluster, 'rel-b', 'team-b');
    expect([refused.ok, refused.stderr]).toEqual([false, notImported]);

    const second = await install(cluster, 'rel-b', 'team-b', '--set', 'crds.enabled=false');
    expect([second.ok, second.stderr]).toEqual([true, '']);
    expect(cluster.get('apps/deployments', 'team-b', 'rel-b-crondeck-controller')).toBeDefined();
    expect(releaseOf(cluster)).toBe('rel');
  }, 90_000);

  test('a release of the same name in another namespace installs too: its cluster-scoped roles are its own', async () => {
    const first = await install(cluster, 'rel', 'jobs');
    expect([first.ok, first.stderr]).toEqual([true, '']);
    const second = await install(cluster, 'rel', 'team-b', '--set', 'crds.enabled=false');
    expect([second.ok, second.stderr]).toEqual([true, '']);
    const clusterRoles = cluster.emu
      .objects('rbac.authorization.k8s.io/clusterroles')
      .map((role) => role.metadata.name as string)
      .filter((name) => name.includes('rel-crondeck'))
      .sort();
    expect(clusterRoles).toEqual(
      ['jobs', 'team-b'].flatMap((ns) =>
        ['api-reviews', 'edit', 'view'].map((role) => `${ns}-rel-crondeck-${role}`),
      ),
    );
    // Both releases' people's roles are folded into the built-in edit: its rules hold Crondeck's once.
    const edit = cluster.get('rbac.authorization.k8s.io/clusterroles', undefined, 'edit');
    const runs = (edit?.rules ?? []).filter((rule: AnyObject) =>
      rule.resources?.includes('scheduledjobs/run'),
    );
    expect(runs).toHaveLength(1);
  }, 90_000);
});

describe('the Kubernetes version', () => {
  const render = (version: string) =>
    helm(['template', 'rel', CHART_DIR, '-n', 'jobs', '--kube-version', version]);

  test('is 1.29 or later: native sidecars (a ScheduledJob with spec.image) are on by default from 1.29', () => {
    for (const older of ['v1.28.15', 'v1.27.16-eks-2f46c53']) {
      const r = render(older);
      expect([older, r.ok, r.stderr]).toEqual([
        older,
        false,
        expect.stringContaining('chart requires kubeVersion: >=1.29.0-0 which is incompatible'),
      ]);
    }
    // Providers' builds are pre-releases to semver: `-0` lets them in.
    for (const supported of ['v1.29.0', 'v1.29.8-eks-a737599', 'v1.30.5-gke.1014001', 'v1.34.1+k3s1']) {
      expect([supported, render(supported).stderr]).toEqual([supported, '']);
    }
  });
});

describe('uninstalling', () => {
  test('NOTES say to delete the ScheduledJobs while the controller runs, then helm uninstall, then the CRDs', () => {
    const notes = (...args: string[]) => {
      const r = helm(['install', 'rel', CHART_DIR, '--namespace', 'jobs', '--dry-run=client', ...args]);
      expect(r.stderr).toBe('');
      return r.stdout.slice(r.stdout.indexOf('NOTES:'));
    };
    const order = (text: string, steps: string[]) => steps.map((step) => text.indexOf(step));
    const namespaced = notes();
    const steps = [
      'kubectl -n jobs delete scheduledjobs --all',
      'helm uninstall rel -n jobs',
      'kubectl delete crd scheduledjobs.crondeck.dev alertconfigs.crondeck.dev',
    ];
    const at = order(namespaced, steps);
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(namespaced).toContain(CLEANUP_FINALIZER);
    expect(notes('--set', 'rbac.clusterWide=true')).toContain(
      'kubectl delete scheduledjobs --all --all-namespaces',
    );
  });

  test('docs/kubernetes.md names the finalizer, how to unstick a ScheduledJob and the kustomize order', () => {
    const doc = readFileSync(path.join(REPO_ROOT, 'docs', 'kubernetes.md'), 'utf8');
    const section = doc.slice(doc.indexOf('### Uninstalling'));
    expect(section).toContain(`\`${CLEANUP_FINALIZER}\``);
    expect(section).toContain(`--type=merge -p '{"metadata":{"finalizers":null}}'`);
    expect(section.indexOf('delete scheduledjobs --all')).toBeLessThan(
      section.indexOf('kubectl delete -k deploy/'),
    );
  });
});

const CONTROLLER_METRICS = [
  'crondeck_controller_reconcile_total',
  'crondeck_controller_workqueue_depth',
  'crondeck_controller_last_reconcile_timestamp_seconds',
];

/** Metric names in PromQL expressions that neither src/metrics nor the controller contract define. */
function unknownMetrics(exprs: string[]): string[] {
  const source = readFileSync(path.join(REPO_ROOT, 'src', 'metrics', 'metrics.ts'), 'utf8');
  const known = new Set([...source.matchAll(/'(service_[a-z_]+)'/g)].map((m) => m[1]!));
  const summaries = [...known].flatMap((n) => [`${n}_sum`, `${n}_count`]);
  for (const n of [...summaries, ...CONTROLLER_METRICS]) known.add(n);
  const used = exprs.flatMap((e) => [...e.matchAll(/\b((?:service|crondeck)_[a-z_]+)\b/g)].map((m) => m[1]!));
  return [...new Set(used.filter((n) => !known.has(n)))];
}
