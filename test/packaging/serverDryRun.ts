import type { K8sObject } from './support';

type Json = Record<string, unknown>;

interface ApiResource {
  name: string;
  namespaced: boolean;
  kind: string;
}

export interface Answer {
  status: number;
  warning: string | null;
  body: Json;
}

/**
 * A client of an API server that sends objects as `kubectl apply` sends manifests: JSON, to the
 * path that discovery names for their kind. `dryRun` asks for a server-side dry run with strict
 * field validation (`kubectl apply --dry-run=server`).
 */
export class ManifestClient {
  private readonly discovered = new Map<string, ApiResource[]>();

  constructor(
    private readonly server: string,
    private readonly token: string,
  ) {}

  async request(method: string, path: string, body?: unknown): Promise<Answer> {
    const response = await fetch(`${this.server}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: Json;
    try {
      parsed = JSON.parse(text) as Json;
    } catch {
      parsed = { text };
    }
    return { status: response.status, warning: response.headers.get('warning'), body: parsed };
  }

  /** The collection path of an object's kind (from discovery), in `namespace` when it is namespaced. */
  async collectionPath(object: K8sObject, namespace: string): Promise<string> {
    const { apiVersion, kind } = object;
    const groupVersion = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    let resources = this.discovered.get(groupVersion);
    if (!resources?.some((resource) => resource.kind === kind)) {
      // Fetched again on a miss: a CRD's kind appears once it is established.
      const answer = await this.request('GET', groupVersion);
      resources = answer.status === 200 ? (answer.body.resources as ApiResource[]) : [];
      this.discovered.set(groupVersion, resources);
    }
    const resource = resources.find((candidate) => candidate.kind === kind && !candidate.name.includes('/'));
    if (!resource) throw new Error(`the server serves no ${kind} in ${apiVersion}`);
    const scope = resource.namespaced ? `/namespaces/${object.metadata.namespace ?? namespace}` : '';
    return `${groupVersion}${scope}/${resource.name}`;
  }

  /** Creates `object`; with `dryRun` as a server-side dry run. Strict field validation either way. */
  async create(object: K8sObject, namespace: string, dryRun: boolean): Promise<Answer> {
    const query = `${dryRun ? 'dryRun=All&' : ''}fieldValidation=Strict`;
    return this.request('POST', `${await this.collectionPath(object, namespace)}?${query}`, object);
  }
}

/** "Kind/name: why", when the answer is a refusal or carries a Warning; null when it is clean. */
export function problemOf(object: K8sObject, answer: Answer): string | null {
  const label = `${object.kind}/${object.metadata.name}`;
  if (answer.status !== 200 && answer.status !== 201) {
    return `${label}: ${answer.status} ${String(answer.body.message ?? JSON.stringify(answer.body))}`;
  }
  return answer.warning ? `${label}: Warning: ${answer.warning}` : null;
}
