/**
 * deploy/ (kubectl apply -k) and examples/: they render, every object matches its schema, and the
 * plain manifests say the same as the chart where the contract speaks (RBAC, names, security).
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import {
  API_REVIEW_RULES,
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
import { readControllerEnvironment } from '../../src/config/controllerEnvironment';
import { readEnvironment } from '../../src/config/environment';
import {
  REPO_ROOT,
  crdFiles,
  helmTemplate,
  kubeTools,
  kustomize,
  loadCrds,
  packageVersion,
  processEnv,
  readObjects,
  sharedSettings,
  startWindowSeconds,
  type K8sObject,
} from './support';

type AnyObject = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const DEPLOY = path.join(REPO_ROOT, 'deploy');
const EXAMPLES = path.join(REPO_ROOT, 'examples');
// deploy/ takes the CRDs from deploy/crds, copies of crds/ that `crondeck manifests` writes
// (kustomize loads files only from within deploy/).

function find(objs: K8sObject[], kind: string, name: string): AnyObject {
  const o = objs.find((x) => x.kind === kind && x.metadata.name === name);
  if (!o) throw new Error(`no ${kind}/${name}`);
  return o;
}

beforeAll(() => {
  kubeTools();
}, 120_000);

describe('deploy/base', () => {
  const objs = () => kustomize(path.join(DEPLOY, 'base'));

  test('renders objects that match their schemas, all in namespace crondeck but the cluster-scoped RBAC', () => {
    const all = objs();
    expect(problemsOf(all)).toEqual([]);
    const clusterScoped = (kind: string) => kind === 'Namespace' || kind.startsWith('Cluster');
    for (const o of all.filter((x) => !clusterScoped(x.kind))) expect(o.metadata.namespace).toBe('crondeck');
    for (const o of all.filter((x) => clusterScoped(x.kind))) expect(o.metadata.namespace).toBeUndefined();
  });

  test('runs every pod restricted, with a read-only root and resources', () => {
    expect(securityProblems(objs())).toEqual([]);
  });

  test('keeps the Secret its pods read from the jobs of the namespace (CRONDECK_OWN_SECRETS)', () => {
    expect(unprotectedSecrets(objs())).toEqual([]);
  });

  test('grants the contract RBAC, the API’s of kubernetes mode as the chart’s default', () => {
    const all = objs();
    expect(flattenRules(find(all, 'Role', 'crondeck-api').rules)).toEqual(API_RULES_KUBERNETES_AUTH);
    expect(flattenRules(find(all, 'Role', 'crondeck-controller').rules)).toEqual(
      [...CONTROLLER_RULES, ...LEASE_RULES].sort(),
    );
    expect(flattenRules(find(all, 'ClusterRole', 'crondeck-api-reviews').rules)).toEqual(API_REVIEW_RULES);
    expect(find(all, 'ClusterRoleBinding', 'crondeck-api-reviews')).toMatchObject({
      roleRef: { kind: 'ClusterRole', name: 'crondeck-api-reviews' },
      subjects: [{ kind: 'ServiceAccount', name: 'crondeck-api', namespace: 'crondeck' }],
    });
    const api = processEnv(find(all, 'Deployment', 'crondeck').spec.template.spec.containers[0]);
    expect(api.SERVICE_AUTH).toBe('kubernetes');
    expect(api.SERVICE_API_TOKEN).toBeUndefined();
  });

  test('ships the chart’s ClusterRoles for people, aggregated into view, edit and admin alike', () => {
    const all = objs();
    const labels = (o: AnyObject) =>
      Object.keys(o.metadata.labels ?? {})
        .filter((label) => label.startsWith('rbac.authorization.k8s.io/aggregate-to-'))
        .sort();
    const chart = helmTemplate();
    for (const [name, rules] of [
      ['view', USER_VIEW_RULES],
      ['edit', USER_EDIT_RULES],
    ] as const) {
      const role = find(all, 'ClusterRole', `crondeck-${name}`);
      expect(flattenRules(role.rules)).toEqual(rules);
      expect(labels(role)).toEqual(labels(find(chart, 'ClusterRole', `jobs-rel-crondeck-${name}`)));
    }
  });

  test('holds a Secret of placeholders that the user must change, used by both Deployments', () => {
    const all = objs();
    const secret = find(all, 'Secret', 'crondeck');
    // No API token: kubernetes mode reads none.
    expect(Object.keys(secret.stringData).sort()).toEqual(['DATABASE_URL', 'SERVICE_REPORT_SECRET']);
    for (const value of Object.values(secret.stringData)) expect(value).toContain('CHANGE-ME');
    for (const name of ['crondeck', 'crondeck-controller']) {
      const c = find(all, 'Deployment', name).spec.template.spec.containers[0];
      expect(c.image).toBe(`ghcr.io/crondeck/crondeck:${packageVersion()}`);
      const refs = (c.env as AnyObject[])
        .filter((e) => e.valueFrom?.secretKeyRef)
        .map((e) => e.valueFrom.secretKeyRef.name);
      expect(new Set(refs)).toEqual(new Set(['crondeck']));
    }
    const api = find(all, 'Deployment', 'crondeck').spec.template.spec.containers[0];
    expect(api.args).toEqual(['serve', '--host', '::', '--port', '7433']);
    const ctl = find(all, 'Deployment', 'crondeck-controller').spec.template.spec.containers[0];
    expect(ctl.env.find((e: AnyObject) => e.name === 'CRONDECK_REPORT_URL').value).toBe(
      'http://crondeck.crondeck.svc:7433',
    );
  });

  test('refuses to start either program on the Secret’s placeholders, naming each', () => {
    const all = objs();
    const placeholders = find(all, 'Secret', 'crondeck').stringData as Record<string, string>;
    for (const name of ['crondeck', 'crondeck-controller']) {
      const c = find(all, 'Deployment', name).spec.template.spec.containers[0];
      const env = processEnv(c);
      for (const e of c.env as AnyObject[]) {
        if (e.valueFrom?.secretKeyRef) env[e.name] = placeholders[e.valueFrom.secretKeyRef.key];
      }
      const read = [...Object.keys(placeholders)].filter((key) => env[key] !== undefined);
      expect(read.length).toBeGreaterThan(0);
      expect(() => readEnvironment(env)).toThrow(
        new RegExp(
          read.map((key) => `${key}: still holds a placeholder \\(it contains CHANGE-ME`).join('.*'),
        ),
      );
    }
  });

  test('probes the API’s readiness on /health and its liveness on /livez, which needs no database', () => {
    const api = find(objs(), 'Deployment', 'crondeck').spec.template.spec.containers[0];
    expect(api.startupProbe.httpGet).toEqual({ path: '/health', port: 'http' });
    expect(api.readinessProbe.httpGet).toEqual({ path: '/health', port: 'http' });
    expect(api.livenessProbe.httpGet).toEqual({ path: '/livez', port: 'http' });
  });

  test('gives the API the time to drain and answer what is in flight before the kubelet kills it', () => {
    const spec = find(objs(), 'Deployment', 'crondeck').spec.template.spec;
    const env = readEnvironment(processEnv(spec.containers[0]));
    expect(env.shutdownDrainSeconds).toBeGreaterThan(0);
    expect(spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(
      env.shutdownDrainSeconds + env.shutdownGraceSeconds + 10,
    );
    expect(env.keepAliveTimeoutSeconds).toBeGreaterThan(60);
  });

  test('runs job pods on its own image, which is also what the controller picks without CRONDECK_IMAGE', () => {
    const ctl = find(objs(), 'Deployment', 'crondeck-controller').spec.template.spec.containers[0];
    const env = processEnv(ctl);
    expect(env.CRONDECK_IMAGE).toBe(ctl.image);
    // Not `latest`, which a cluster pulls on every run: an image loaded on the nodes would never do.
    const { CRONDECK_IMAGE: _set, ...withoutImage } = env;
    expect(readControllerEnvironment(withoutImage).image).toBe(ctl.image);
  });

  test('lets both programs wait for the database at start, and migrate, before a probe restarts them', () => {
    for (const name of ['crondeck', 'crondeck-controller']) {
      const c = find(objs(), 'Deployment', name).spec.template.spec.containers[0];
      const needed = readEnvironment(processEnv(c)).databaseWaitSeconds + 60;
      expect({ name, enough: startWindowSeconds(c) >= needed }).toEqual({ name, enough: true });
    }
  });

  test('gives the controller the settings the API reads (time zone, retention, alerts) with the same values', () => {
    const all = objs();
    const [api, controller] = ['crondeck', 'crondeck-controller'].map((name) =>
      sharedSettings(find(all, 'Deployment', name).spec.template.spec.containers[0]),
    );
    expect(controller).toEqual(api);
    // Set on both, not left to the default: a user who changes one sees the other beside it.
    for (const name of ['crondeck', 'crondeck-controller']) {
      expect(
        processEnv(find(all, 'Deployment', name).spec.template.spec.containers[0]).SERVICE_TIMEZONE,
      ).toBe('UTC');
    }
  });
});

describe('deploy/ with the CRDs', () => {
  test('deploy/kustomization.yaml takes the copies in deploy/crds of exactly the files of crds/', () => {
    const k = readObjects(path.join(DEPLOY, 'kustomization.yaml'))[0] as AnyObject;
    expect([...k.resources].sort()).toEqual([...crdFiles().map((file) => `crds/${file}`), 'base'].sort());
    for (const file of crdFiles()) {
      expect(readObjects(path.join(DEPLOY, 'crds', file))).toEqual(
        readObjects(path.join(REPO_ROOT, 'crds', file)),
      );
    }
  });

  test('kubectl kustomize deploy/ renders the CRDs with the rest', () => {
    const all = kustomize(DEPLOY);
    expect(problemsOf(all)).toEqual([]);
    expect(
      all
        .filter((o) => o.kind === 'CustomResourceDefinition')
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['alertconfigs.crondeck.dev', 'cronjobwatches.crondeck.dev', 'scheduledjobs.crondeck.dev']);
  });
});

describe('examples/own-registry (deploy/ from another registry)', () => {
  const objs = () => kustomize(path.join(EXAMPLES, 'own-registry'));
  const IMAGE = `registry.example.com/platform/crondeck:${packageVersion()}`;

  test('gives the job pods the image and the pull Secret the Deployments run with', () => {
    const all = objs();
    expect(problemsOf(all)).toEqual([]);
    for (const name of ['crondeck', 'crondeck-controller']) {
      const pod = find(all, 'Deployment', name).spec.template.spec;
      expect(pod.containers[0].image).toBe(IMAGE);
      expect(pod.imagePullSecrets).toEqual([{ name: 'regcred' }]);
    }
    const controller = find(all, 'Deployment', 'crondeck-controller').spec.template.spec.containers[0];
    const env = readControllerEnvironment({
      ...processEnv(controller),
      DATABASE_URL: 'postgres://x',
      SERVICE_REPORT_SECRET: 'x'.repeat(32),
    });
    expect(env.image).toBe(IMAGE);
    expect(env.imagePullSecrets).toEqual(['regcred']);
  });
});

describe('examples/', () => {
  const files = readdirSync(EXAMPLES).filter((f) => f.endsWith('.yaml'));
  const objs = () => files.flatMap((f) => readObjects(path.join(EXAMPLES, f)));

  test('hold a ScheduledJob and an AlertConfig whose webhook URL comes from a Secret in the same file', () => {
    const all = objs();
    expect(all.map((o) => o.kind).sort()).toEqual(['AlertConfig', 'ScheduledJob', 'Secret']);
    const alert = find(all, 'AlertConfig', 'nightly-report-alerts');
    const ref = alert.spec.webhooks.find((w: AnyObject) => w.urlFrom).urlFrom.secretKeyRef;
    expect(find(all, 'Secret', ref.name).stringData[ref.key]).toMatch(/^https:\/\//);
    expect(alert.spec.jobRef.name).toBe(find(all, 'ScheduledJob', 'nightly-report').metadata.name);
  });

  test('built-in objects match their schemas', () => {
    expect(problemsOf(objs().filter((o) => !o.apiVersion.startsWith('crondeck.dev/')))).toEqual([]);
  });

  test('custom resources match the CRDs', () => {
    expect(problemsOf(objs(), loadCrds())).toEqual([]);
  });
});
