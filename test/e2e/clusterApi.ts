import { request as httpRequest } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import {
  BatchV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The suite's only way into the cluster: its API, with the credentials of a kubeconfig file. */
export interface ClusterApi {
  kc: KubeConfig;
  core: CoreV1Api;
  batch: BatchV1Api;
  custom: CustomObjectsApi;
  leases: CoordinationV1Api;
  /** A request as JSON text: what `kubectl apply -f` sends, with no typed model in between. */
  raw(method: string, path: string, body?: unknown): Promise<{ status: number; body: Obj }>;
}

export const STRATEGIC_MERGE = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);

export function clusterApi(kubeconfigPath: string): ClusterApi {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  if (!kc.getCurrentCluster()) throw new Error(`${kubeconfigPath} names no current cluster`);
  return clusterApiOf(kc);
}

/** The same cluster's API as the bearer of `token` (a ServiceAccount's, a person's). */
export function clusterApiAs(api: ClusterApi, token: string): ClusterApi {
  const cluster = api.kc.getCurrentCluster()!;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [cluster],
    users: [{ name: 'bearer', token }],
    contexts: [{ name: 'bearer', cluster: cluster.name, user: 'bearer' }],
    currentContext: 'bearer',
  });
  return clusterApiOf(kc);
}

function clusterApiOf(kc: KubeConfig): ClusterApi {
  return {
    kc,
    core: kc.makeApiClient(CoreV1Api),
    batch: kc.makeApiClient(BatchV1Api),
    custom: kc.makeApiClient(CustomObjectsApi),
    leases: kc.makeApiClient(CoordinationV1Api),
    raw: (method, path, body) => rawRequest(kc, method, path, body),
  };
}

/**
 * client-node's typed models know `x-kubernetes-*` keys only by their camel-case names and would
 * drop them from a CRD given as plain JSON, so CRDs go as text, with the kubeconfig's credentials
 * (client certificates, a token or a CA) applied as client-node applies them.
 */
async function rawRequest(
  kc: KubeConfig,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Obj }> {
  const server = new URL(kc.getCurrentCluster()!.server);
  const options: RequestOptions = {
    method,
    hostname: server.hostname,
    port: server.port,
    path: server.pathname.replace(/\/$/, '') + path,
    headers: { accept: 'application/json', 'content-type': 'application/json' },
  };
  await kc.applyToHTTPSOptions(options);
  const send = server.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: Obj;
        try {
          parsed = JSON.parse(text) as Obj;
        } catch {
          parsed = { text };
        }
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
    });
    req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path}: no answer in 30 s`)));
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** An API error's HTTP status (client-node's ApiException carries it as `code`). */
export function statusOf(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}
