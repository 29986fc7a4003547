import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generateCertificate } from '../alerts/support/smtp';
import { KubeEmulator } from '../support/kube/emulator';
import { writeKubeconfigFile } from '../support/kube/kubeconfig';
import type { Obj } from '../support/kube/types';
import { CHART_DIR, REPO_ROOT, kubeTools, type HelmResult } from './support';

/**
 * The real helm and kubectl binaries against the Kubernetes API emulator over HTTPS (Go clients
 * send a kubeconfig's bearer token only over TLS). Each cluster has its own kubeconfig and helm
 * home directories, removed by stop().
 *
 * helm and kubectl run as child processes without blocking the event loop: the emulator answers
 * them from this process.
 */
export interface HelmCluster {
  emu: KubeEmulator;
  dir: string;
  /** `helm ARGS --kubeconfig …`; never throws, the result says whether helm succeeded. */
  helm(args: string[]): Promise<HelmResult>;
  kubectl(args: string[]): Promise<HelmResult>;
  createNamespace(name: string): void;
  /** A stored object, or undefined. `resource` as in KubeEmulator.objects (`apps/statefulsets`). */
  get(resource: string, namespace: string | undefined, name: string): Obj | undefined;
  stop(): Promise<void>;
}

function run(binary: string, args: string[], env: NodeJS.ProcessEnv): Promise<HelmResult> {
  return new Promise((resolve) => {
    execFile(binary, args, { env, cwd: REPO_ROOT, maxBuffer: 32 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ ok: !error, stdout, stderr }),
    );
  });
}

export async function startHelmCluster(): Promise<HelmCluster> {
  const tls = generateCertificate();
  const emu = await KubeEmulator.start({ tls });
  const dir = mkdtempSync(path.join(tmpdir(), 'crondeck-helm-'));
  const kubeconfig = path.join(dir, 'kubeconfig');
  writeKubeconfigFile(kubeconfig, { server: emu.url, token: emu.adminToken, caCert: tls.cert });
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    KUBECONFIG: kubeconfig,
    HELM_CACHE_HOME: path.join(dir, 'cache'),
    HELM_CONFIG_HOME: path.join(dir, 'config'),
    HELM_DATA_HOME: path.join(dir, 'data'),
  };
  const tools = kubeTools();
  return {
    emu,
    dir,
    helm: (args) => run(tools.helm, args, env),
    kubectl: (args) => run(tools.kubectl, args, env),
    createNamespace(name) {
      emu.seed(emu.typeByName('namespaces'), { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    },
    get(resource, namespace, name) {
      return emu.objects(resource, namespace).find((o) => o.metadata.name === name);
    },
    async stop() {
      await emu.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The chart as a previous release of it: a copy whose Chart.yaml says an older version and
 * appVersion, packaged with `helm package` as a chart repository would serve it. Every object's
 * helm.sh/chart and app.kubernetes.io/version labels differ from the current chart's, so an
 * upgrade from it patches each one.
 */
export async function packagePreviousChart(cluster: HelmCluster, version: string): Promise<string> {
  const copy = path.join(cluster.dir, 'previous', 'crondeck');
  cpSync(CHART_DIR, copy, { recursive: true });
  const chartYaml = path.join(copy, 'Chart.yaml');
  writeFileSync(
    chartYaml,
    readFileSync(chartYaml, 'utf8')
      .replace(/^version: .*$/m, `version: ${version}`)
      .replace(/^appVersion: .*$/m, `appVersion: '${version}'`),
  );
  const out = path.join(cluster.dir, 'packages');
  const packaged = await cluster.helm(['package', copy, '--destination', out]);
  if (!packaged.ok) throw new Error(`helm package failed:\n${packaged.stderr}`);
  return path.join(out, `crondeck-${version}.tgz`);
}
