import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { readEnvironment, type Environment } from '../../src/config/environment';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const CHART_DIR = path.join(REPO_ROOT, 'charts', 'crondeck');
export const CRDS_DIR = path.join(REPO_ROOT, 'crds');

export type K8sObject = Record<string, unknown> & {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
};

let tools: { helm: string; kubectl: string } | null = null;

/**
 * helm and kubectl from scripts/kube-tools.sh (fetched once per machine, then cached). When they
 * cannot be had, the tests fail with the script's message rather than skip.
 */
export function kubeTools(): { helm: string; kubectl: string } {
  if (tools) return tools;
  const result = spawnSync('bash', [path.join(REPO_ROOT, 'scripts', 'kube-tools.sh')], { encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(`scripts/kube-tools.sh could not provide helm and kubectl:\n${result.stderr}`);
  }
  const dir = result.stdout.trim().split('\n').pop()!;
  tools = { helm: path.join(dir, 'helm'), kubectl: path.join(dir, 'kubectl') };
  return tools;
}

export interface HelmResult {
  ok: boolean;
  stdout: string;
  stderr: string;
}

export function helm(args: string[]): HelmResult {
  const r = spawnSync(kubeTools().helm, args, { encoding: 'utf8', cwd: REPO_ROOT });
  return { ok: r.status === 0, stdout: r.stdout, stderr: r.stderr };
}

const rendered = new Map<string, string>();

/**
 * `helm template` of the chart (release `rel`, namespace `jobs`); throws with helm's message when
 * it fails. The output of each argument list is rendered once per test file and parsed afresh.
 */
export function helmTemplate(args: string[] = []): K8sObject[] {
  const key = JSON.stringify(args);
  if (!rendered.has(key)) {
    const r = helm(['template', 'rel', CHART_DIR, '--namespace', 'jobs', ...args]);
    if (!r.ok) throw new Error(`helm template ${args.join(' ')} failed:\n${r.stderr}`);
    rendered.set(key, r.stdout);
  }
  return parseObjects(rendered.get(key)!);
}

export function kustomize(dir: string): K8sObject[] {
  const out = execFileSync(kubeTools().kubectl, ['kustomize', dir], { encoding: 'utf8', cwd: REPO_ROOT });
  return parseObjects(out);
}

function parseObjects(text: string): K8sObject[] {
  return parseAllDocuments(text)
    .map((doc) => {
      if (doc.errors.length) throw new Error(doc.errors.map((e) => e.message).join('\n'));
      return doc.toJS() as K8sObject | null;
    })
    .filter((o): o is K8sObject => o !== null);
}

export function readObjects(file: string): K8sObject[] {
  return parseObjects(readFileSync(file, 'utf8'));
}

/** The generated CRD files under crds/ (none until the CRD generator has landed). */
export function crdFiles(): string[] {
  if (!existsSync(CRDS_DIR)) return [];
  return readdirSync(CRDS_DIR)
    .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
    .sort();
}

export function loadCrds(): K8sObject[] {
  return crdFiles().flatMap((f) => readObjects(path.join(CRDS_DIR, f)));
}

export function packageVersion(): string {
  return (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string })
    .version;
}

type EnvVar = { name: string; value?: string; valueFrom?: Record<string, Record<string, string>> };

/**
 * A container's environment as its process would see it: literal values as given, those taken
 * from the pod (fieldRef) as `pod` gets them (by default `pod-0` in namespace `jobs`), and
 * Secrets' values as placeholders long enough for every check.
 */
export function processEnv(
  container: { env?: EnvVar[] },
  pod: { namespace: string; name: string } = { namespace: 'jobs', name: 'pod-0' },
): NodeJS.ProcessEnv {
  const fromPod: Record<string, string> = { 'metadata.namespace': pod.namespace, 'metadata.name': pod.name };
  return Object.fromEntries(
    (container.env ?? []).map((e): [string, string | undefined] => {
      if (e.valueFrom?.fieldRef) return [e.name, fromPod[e.valueFrom.fieldRef.fieldPath!]];
      if (e.valueFrom?.secretKeyRef)
        return [e.name, `secret-${e.valueFrom.secretKeyRef.key}`.padEnd(40, 'x')];
      return [e.name, e.value];
    }),
  );
}

/**
 * The settings the API and the controller both read (configuration.md), as `readEnvironment`
 * reads them from a container's environment: the two must agree.
 */
export function sharedSettings(container: { env?: EnvVar[] }) {
  const { defaultTimeZone, retentionDays, logLevel, smtp, webhookDenyCidrs }: Environment = readEnvironment(
    processEnv(container),
  );
  return { defaultTimeZone, retentionDays, logLevel, smtp, webhookDenyCidrs };
}

/**
 * How long a container may take to start before its liveness probe may restart it: its
 * startupProbe's window, or without one the liveness probe's first failures.
 */
export function startWindowSeconds(container: {
  startupProbe?: { periodSeconds?: number; failureThreshold?: number };
  livenessProbe?: { initialDelaySeconds?: number; periodSeconds?: number; failureThreshold?: number };
}): number {
  const probe = container.startupProbe ?? container.livenessProbe;
  const delay = container.startupProbe ? 0 : (container.livenessProbe?.initialDelaySeconds ?? 0);
  return delay + (probe?.periodSeconds ?? 10) * (probe?.failureThreshold ?? 3);
}
