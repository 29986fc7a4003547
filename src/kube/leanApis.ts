import { ApiException } from '@kubernetes/client-node';
import type {
  Configuration,
  CoreV1Event,
  HttpInfo,
  RequestContext,
  ResponseContext,
  V1CronJob,
  V1CronJobList,
  V1Job,
  V1JobList,
  CoreV1EventList,
  V1Lease,
  V1PodList,
  V1Secret,
  V1SecretList,
} from '@kubernetes/client-node';
import {
  BatchV1ApiRequestFactory,
  BatchV1ApiResponseProcessor,
} from '@kubernetes/client-node/dist/gen/apis/BatchV1Api.js';
import {
  CoordinationV1ApiRequestFactory,
  CoordinationV1ApiResponseProcessor,
} from '@kubernetes/client-node/dist/gen/apis/CoordinationV1Api.js';
import {
  CoreV1ApiRequestFactory,
  CoreV1ApiResponseProcessor,
} from '@kubernetes/client-node/dist/gen/apis/CoreV1Api.js';
import {
  CustomObjectsApiRequestFactory,
  CustomObjectsApiResponseProcessor,
} from '@kubernetes/client-node/dist/gen/apis/CustomObjectsApi.js';

/**
 * The few API calls the controller and the Kubernetes runtime make, each over client-node's own
 * generated request factory and response processor (the same URL, query, authentication, body
 * serialisation, model deserialisation and `ApiException` as its API classes give). Not the API
 * classes themselves: client-node's `CoreV1Api`, `BatchV1Api`... come from three layers of every
 * API group's classes (some 12 MB of sources alone) that a process holds once loaded, and each
 * call here goes straight from request to response as those layers do without middleware.
 * leanClientNode.ts keeps them unloaded. Each class takes the parameters as client-node's do (one
 * object), so callers read the same.
 */

/** A merge patch: what the controller sends where client-node's patches default to JSON-Patch. */
const MERGE_PATCH = 'application/merge-patch+json';

/** One request of a generated request factory, answered by its response processor. */
export async function send<T>(
  configuration: Configuration,
  request: Promise<RequestContext>,
  read: (response: ResponseContext) => Promise<HttpInfo<T>>,
  contentType?: string,
  /** Aborts the request (and the waits of a retry): a review's timeout. */
  signal?: AbortSignal,
): Promise<T> {
  const context = await request;
  if (contentType) context.setHeaderParam('Content-Type', contentType);
  if (signal) context.setSignal(signal);
  const response = await configuration.httpApi.send(context).toPromise();
  return (await read(response)).data;
}

interface Listing {
  labelSelector?: string;
  /** A page of at most `limit` items, from where `_continue` (the page before's token) says. */
  limit?: number;
  _continue?: string;
}
interface InNamespace {
  namespace: string;
}
interface Named extends InNamespace {
  name: string;
}
interface Writing {
  fieldManager?: string;
  /** `All`: the API server checks and admits the write, and stores nothing. */
  dryRun?: 'All';
}

export class LeanBatchV1Api {
  private readonly requests: BatchV1ApiRequestFactory;
  private readonly responses = new BatchV1ApiResponseProcessor();

  constructor(private readonly configuration: Configuration) {
    this.requests = new BatchV1ApiRequestFactory(configuration);
  }

  listNamespacedCronJob(param: InNamespace & Listing): Promise<V1CronJobList> {
    const { namespace, labelSelector, limit, _continue } = param;
    return send(
      this.configuration,
      this.requests.listNamespacedCronJob(
        namespace,
        undefined,
        undefined,
        _continue,
        undefined,
        labelSelector,
        limit,
      ),
      (response) => this.responses.listNamespacedCronJobWithHttpInfo(response),
    );
  }

  listCronJobForAllNamespaces(param: Listing): Promise<V1CronJobList> {
    return send(
      this.configuration,
      this.requests.listCronJobForAllNamespaces(
        undefined,
        param._continue,
        undefined,
        param.labelSelector,
        param.limit,
      ),
      (response) => this.responses.listCronJobForAllNamespacesWithHttpInfo(response),
    );
  }

  readNamespacedCronJob(param: Named): Promise<V1CronJob> {
    return send(
      this.configuration,
      this.requests.readNamespacedCronJob(param.name, param.namespace),
      (response) => this.responses.readNamespacedCronJobWithHttpInfo(response),
    );
  }

  createNamespacedCronJob(param: InNamespace & Writing & { body: V1CronJob }): Promise<V1CronJob> {
    const { namespace, body, fieldManager } = param;
    return send(
      this.configuration,
      this.requests.createNamespacedCronJob(namespace, body, undefined, undefined, fieldManager),
      (response) => this.responses.createNamespacedCronJobWithHttpInfo(response),
    );
  }

  replaceNamespacedCronJob(param: Named & Writing & { body: V1CronJob }): Promise<V1CronJob> {
    const { name, namespace, body, fieldManager } = param;
    return send(
      this.configuration,
      this.requests.replaceNamespacedCronJob(name, namespace, body, undefined, undefined, fieldManager),
      (response) => this.responses.replaceNamespacedCronJobWithHttpInfo(response),
    );
  }

  /** A merge patch. */
  patchNamespacedCronJob(param: Named & Writing & { body: object }): Promise<V1CronJob> {
    const { name, namespace, body, fieldManager } = param;
    return send(
      this.configuration,
      this.requests.patchNamespacedCronJob(name, namespace, body, undefined, undefined, fieldManager),
      (response) => this.responses.patchNamespacedCronJobWithHttpInfo(response),
      MERGE_PATCH,
    );
  }

  listNamespacedJob(param: InNamespace & Listing): Promise<V1JobList> {
    const { namespace, labelSelector, limit, _continue } = param;
    return send(
      this.configuration,
      this.requests.listNamespacedJob(
        namespace,
        undefined,
        undefined,
        _continue,
        undefined,
        labelSelector,
        limit,
      ),
      (response) => this.responses.listNamespacedJobWithHttpInfo(response),
    );
  }

  listJobForAllNamespaces(param: Listing): Promise<V1JobList> {
    return send(
      this.configuration,
      this.requests.listJobForAllNamespaces(
        undefined,
        param._continue,
        undefined,
        param.labelSelector,
        param.limit,
      ),
      (response) => this.responses.listJobForAllNamespacesWithHttpInfo(response),
    );
  }

  createNamespacedJob(param: InNamespace & Writing & { body: V1Job }): Promise<V1Job> {
    const { namespace, body, fieldManager, dryRun } = param;
    return send(
      this.configuration,
      this.requests.createNamespacedJob(namespace, body, undefined, dryRun, fieldManager),
      (response) => this.responses.createNamespacedJobWithHttpInfo(response),
    );
  }

  /** A merge patch. */
  patchNamespacedJob(param: Named & Writing & { body: object }): Promise<V1Job> {
    const { name, namespace, body, fieldManager } = param;
    return send(
      this.configuration,
      this.requests.patchNamespacedJob(name, namespace, body, undefined, undefined, fieldManager),
      (response) => this.responses.patchNamespacedJobWithHttpInfo(response),
      MERGE_PATCH,
    );
  }

  deleteNamespacedJob(param: Named & { propagationPolicy: 'Background' }): Promise<unknown> {
    const { name, namespace, propagationPolicy } = param;
    return send(
      this.configuration,
      this.requests.deleteNamespacedJob(
        name,
        namespace,
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
        propagationPolicy,
      ),
      (response) => this.responses.deleteNamespacedJobWithHttpInfo(response),
    );
  }
}

export class LeanCoreV1Api {
  private readonly requests: CoreV1ApiRequestFactory;
  private readonly responses = new CoreV1ApiResponseProcessor();

  constructor(private readonly configuration: Configuration) {
    this.requests = new CoreV1ApiRequestFactory(configuration);
  }

  listNamespacedPod(param: InNamespace & Listing): Promise<V1PodList> {
    const { namespace, labelSelector, limit, _continue } = param;
    return send(
      this.configuration,
      this.requests.listNamespacedPod(
        namespace,
        undefined,
        undefined,
        _continue,
        undefined,
        labelSelector,
        limit,
      ),
      (response) => this.responses.listNamespacedPodWithHttpInfo(response),
    );
  }

  listPodForAllNamespaces(param: Listing): Promise<V1PodList> {
    return send(
      this.configuration,
      this.requests.listPodForAllNamespaces(
        undefined,
        param._continue,
        undefined,
        param.labelSelector,
        param.limit,
      ),
      (response) => this.responses.listPodForAllNamespacesWithHttpInfo(response),
    );
  }

  /**
   * A container's log (`pods/log`), its last `tailLines` lines. Read here rather than through
   * client-node's processor, which parses the text as its content type says and throws on the 204
   * kube-apiserver answers for a pod not yet on a node: that is null here (no log yet).
   */
  async readPodLogTail(
    param: Named & { container: string; tailLines: number; timeoutMs: number },
  ): Promise<string | null> {
    const { name, namespace, container, tailLines, timeoutMs } = param;
    const context = await this.requests.readNamespacedPodLog(
      name,
      namespace,
      container,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      tailLines,
    );
    // kube-apiserver never times pods/log out (a long-running request): a kubelet that does not
    // answer would hold the caller for good.
    context.setSignal(AbortSignal.timeout(timeoutMs));
    const response = await this.configuration.httpApi.send(context).toPromise();
    if (response.httpStatusCode === 204) return null;
    const text = await response.body.text();
    if (response.httpStatusCode === 200) return text;
    throw new ApiException(response.httpStatusCode, 'reading a pod log', text, response.headers);
  }

  /** Events of a namespace, by field selector (`involvedObject.uid=…,type=Warning`). */
  listNamespacedEvent(param: InNamespace & { fieldSelector: string }): Promise<CoreV1EventList> {
    const { namespace, fieldSelector } = param;
    return send(
      this.configuration,
      this.requests.listNamespacedEvent(namespace, undefined, undefined, undefined, fieldSelector),
      (response) => this.responses.listNamespacedEventWithHttpInfo(response),
    );
  }

  listNamespacedSecret(param: InNamespace & Listing): Promise<V1SecretList> {
    const { namespace, labelSelector } = param;
    return send(
      this.configuration,
      this.requests.listNamespacedSecret(
        namespace,
        undefined,
        undefined,
        undefined,
        undefined,
        labelSelector,
      ),
      (response) => this.responses.listNamespacedSecretWithHttpInfo(response),
    );
  }

  listSecretForAllNamespaces(param: Listing): Promise<V1SecretList> {
    return send(
      this.configuration,
      this.requests.listSecretForAllNamespaces(undefined, undefined, undefined, param.labelSelector),
      (response) => this.responses.listSecretForAllNamespacesWithHttpInfo(response),
    );
  }

  readNamespacedSecret(param: Named): Promise<V1Secret> {
    return send(
      this.configuration,
      this.requests.readNamespacedSecret(param.name, param.namespace),
      (response) => this.responses.readNamespacedSecretWithHttpInfo(response),
    );
  }

  createNamespacedSecret(param: InNamespace & Writing & { body: V1Secret }): Promise<V1Secret> {
    const { namespace, body, fieldManager } = param;
    return send(
      this.configuration,
      this.requests.createNamespacedSecret(namespace, body, undefined, undefined, fieldManager),
      (response) => this.responses.createNamespacedSecretWithHttpInfo(response),
    );
  }

  /** A merge patch. */
  patchNamespacedSecret(param: Named & Writing & { body: object }): Promise<V1Secret> {
    const { name, namespace, body, fieldManager } = param;
    return send(
      this.configuration,
      this.requests.patchNamespacedSecret(name, namespace, body, undefined, undefined, fieldManager),
      (response) => this.responses.patchNamespacedSecretWithHttpInfo(response),
      MERGE_PATCH,
    );
  }

  createNamespacedEvent(param: InNamespace & Writing & { body: CoreV1Event }): Promise<CoreV1Event> {
    const { namespace, body, fieldManager } = param;
    return send(
      this.configuration,
      this.requests.createNamespacedEvent(namespace, body, undefined, undefined, fieldManager),
      (response) => this.responses.createNamespacedEventWithHttpInfo(response),
    );
  }
}

/** Custom objects come as JSON (client-node's type for them is `any`): T is what the caller knows. */
interface CustomResources {
  group: string;
  version: string;
  plural: string;
}

export class LeanCustomObjectsApi {
  private readonly requests: CustomObjectsApiRequestFactory;
  private readonly responses = new CustomObjectsApiResponseProcessor();

  constructor(private readonly configuration: Configuration) {
    this.requests = new CustomObjectsApiRequestFactory(configuration);
  }

  listNamespacedCustomObject<T>(param: CustomResources & InNamespace & Listing): Promise<T> {
    const { group, version, namespace, plural, labelSelector } = param;
    return send(
      this.configuration,
      this.requests.listNamespacedCustomObject(
        group,
        version,
        namespace,
        plural,
        undefined,
        undefined,
        undefined,
        undefined,
        labelSelector,
      ),
      (response) => this.responses.listNamespacedCustomObjectWithHttpInfo(response),
    );
  }

  listClusterCustomObject<T>(param: CustomResources & Listing): Promise<T> {
    const { group, version, plural, labelSelector } = param;
    return send(
      this.configuration,
      this.requests.listClusterCustomObject(
        group,
        version,
        plural,
        undefined,
        undefined,
        undefined,
        undefined,
        labelSelector,
      ),
      (response) => this.responses.listClusterCustomObjectWithHttpInfo(response),
    );
  }

  getNamespacedCustomObject<T>(param: CustomResources & Named): Promise<T> {
    const { group, version, namespace, plural, name } = param;
    return send(
      this.configuration,
      this.requests.getNamespacedCustomObject(group, version, namespace, plural, name),
      (response) => this.responses.getNamespacedCustomObjectWithHttpInfo(response),
    );
  }

  createNamespacedCustomObject<T>(
    param: CustomResources & InNamespace & Writing & { body: object },
  ): Promise<T> {
    const { group, version, namespace, plural, body, fieldManager } = param;
    return send(
      this.configuration,
      this.requests.createNamespacedCustomObject(
        group,
        version,
        namespace,
        plural,
        body,
        undefined,
        undefined,
        fieldManager,
      ),
      (response) => this.responses.createNamespacedCustomObjectWithHttpInfo(response),
    );
  }

  /** A merge patch. */
  patchNamespacedCustomObject<T>(param: CustomResources & Named & Writing & { body: object }): Promise<T> {
    const { group, version, namespace, plural, name, body, fieldManager } = param;
    return send(
      this.configuration,
      this.requests.patchNamespacedCustomObject(
        group,
        version,
        namespace,
        plural,
        name,
        body,
        undefined,
        fieldManager,
      ),
      (response) => this.responses.patchNamespacedCustomObjectWithHttpInfo(response),
      MERGE_PATCH,
    );
  }

  /** A merge patch of the status subresource. */
  patchNamespacedCustomObjectStatus<T>(
    param: CustomResources & Named & Writing & { body: object },
  ): Promise<T> {
    const { group, version, namespace, plural, name, body, fieldManager } = param;
    return send(
      this.configuration,
      this.requests.patchNamespacedCustomObjectStatus(
        group,
        version,
        namespace,
        plural,
        name,
        body,
        undefined,
        fieldManager,
      ),
      (response) => this.responses.patchNamespacedCustomObjectStatusWithHttpInfo(response),
      MERGE_PATCH,
    );
  }

  deleteNamespacedCustomObject<T>(param: CustomResources & Named): Promise<T> {
    const { group, version, namespace, plural, name } = param;
    return send(
      this.configuration,
      this.requests.deleteNamespacedCustomObject(group, version, namespace, plural, name),
      (response) => this.responses.deleteNamespacedCustomObjectWithHttpInfo(response),
    );
  }
}

export class LeanCoordinationV1Api {
  private readonly requests: CoordinationV1ApiRequestFactory;
  private readonly responses = new CoordinationV1ApiResponseProcessor();

  constructor(private readonly configuration: Configuration) {
    this.requests = new CoordinationV1ApiRequestFactory(configuration);
  }

  readNamespacedLease(param: Named): Promise<V1Lease> {
    return send(
      this.configuration,
      this.requests.readNamespacedLease(param.name, param.namespace),
      (response) => this.responses.readNamespacedLeaseWithHttpInfo(response),
    );
  }

  createNamespacedLease(param: InNamespace & Writing & { body: V1Lease }): Promise<V1Lease> {
    const { namespace, body, fieldManager } = param;
    return send(
      this.configuration,
      this.requests.createNamespacedLease(namespace, body, undefined, undefined, fieldManager),
      (response) => this.responses.createNamespacedLeaseWithHttpInfo(response),
    );
  }

  replaceNamespacedLease(param: Named & Writing & { body: V1Lease }): Promise<V1Lease> {
    const { name, namespace, body, fieldManager } = param;
    return send(
      this.configuration,
      this.requests.replaceNamespacedLease(name, namespace, body, undefined, undefined, fieldManager),
      (response) => this.responses.replaceNamespacedLeaseWithHttpInfo(response),
    );
  }
}
