import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { BOOTSTRAP_POLICY } from './bootstrapPolicy';
import {
  allowedByRules,
  authenticate,
  forbidden,
  reviewToken,
  type AllowRule,
  type Attributes,
  type TokenAuthenticators,
} from './auth';
import { registerBuiltins } from './builtins';
import { ContainerLogStore } from './containerLogs';
import { rbacAuthorize, rbacRulesFor } from './builtins/authorizer';
import './builtins/tokens';
import { aggregateClusterRoles, clusterRoleAggregationHook } from './controllers/clusterRoleAggregation';
import { createJobFromCronJob, fireCronJob, syncCronJob } from './controllers/cronjob';
import { GarbageCollector } from './controllers/gc';
import { syncJob } from './controllers/job';
import { expireFinishedJobs } from './controllers/ttlAfterFinished';
import { namespaceControllerPass } from './controllers/namespace';
import { createDefaultServiceAccount } from './controllers/serviceAccounts';
import { customResourceDefinitions } from './crd';
import { establish, reestablish, unregister } from './crdServing';
import { scaleSubresource } from './customResources/scale';
import { AGGREGATED_DISCOVERY_TYPE, discovery, PlainNotFound, VERSION_INFO } from './discovery';
import { ApiError, fieldErr, invalid, notEmulated } from './errors';
import { StorageInitializing } from './faults';
import {
  grant,
  serviceAccountToken,
  userToken,
  type Grant,
  type ServiceAccountCredentials,
  type Subject,
} from './identities';
import {
  warning,
  type FieldValidation,
  type HandlerResult,
  type RequestContext,
  type ServerServices,
  type User,
} from './handlers/context';
import { del } from './handlers/delete';
import { patch } from './handlers/patch';
import { servePodLog } from './handlers/podLog';
import { get, list } from './handlers/read';
import { subresourcePost } from './handlers/subresources';
import { watch } from './handlers/watch';
import { create, update } from './handlers/write';
import { serveOpenApiV3 } from './openapiV3/serve';
import { PodLogFaults } from './podLogFaults';
import { decodeProtobufBody, PROTOBUF_TYPE } from './protobuf';
import { Registry, resourceKey, type ResourceType } from './resources';
import { requestAttributes } from './requestAttributes';
import { REVIEW_RESOURCES, ReviewFaults } from './reviewFaults';
import { route, type RouteInfo } from './router';
import { ServiceAccountTokens } from './serviceAccountTokens';
import { Store } from './store';
import { clone, type Obj } from './types';

/** A watch a client holds open: its resource, namespace (null: every one) and label selector. */
export interface OpenWatch {
  resource: string;
  namespace: string | null;
  labelSelector: string;
}

export interface EmulatorOptions {
  /** Bearer token of the admin user (group system:masters). */
  adminToken?: string;
  /** How long before timeoutSeconds a watch sends its BOOKMARK (real server: ~1–2 s). */
  bookmarkLeadMs?: number;
  /** How long a list from a future resourceVersion waits before its 504 (real: ~3 s). */
  tooLargeRvWaitMs?: number;
  now?: () => Date;
  /**
   * Serve HTTPS with this key and certificate. Go clients (helm, kubectl) send a kubeconfig's
   * bearer token only over TLS, so they need it to authenticate.
   */
  tls?: { key: string; cert: string };
}

const ADMIN_TOKEN = 'crondeck-emulator-admin';
/** Objects the emulator writes itself are managed as the API server's own (bootstrap, seeds). */
const INTERNAL_USER_AGENT = 'kube-apiserver/v1.32.13 (linux/amd64) kubernetes/63adf01';
const ADMIN: User = { name: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] };
/**
 * kube-apiserver's http.Server has MaxHeaderBytes 1 MiB and Go reads 4 KiB beyond it: a 1 MB
 * bearer token still reaches the authenticator (and is refused there), where Node's default
 * 16 KiB limit would answer 431.
 */
const MAX_HEADER_BYTES = (1 << 20) + 4096;

/**
 * A kube-apiserver v1.32 stand-in on 127.0.0.1 for the requests an operator makes, proven by
 * replaying test/fixtures/kube-api/transcripts. What it does not serve answers 501 "not emulated".
 */
export class KubeEmulator implements ServerServices {
  readonly store = new Store();
  readonly registry = new Registry();
  /** Static bearer tokens (a `--token-auth-file`): the admin's, and those tests add. */
  readonly tokens = new Map<string, User>();
  /** Signs TokenRequest tokens and authenticates them (serviceAccountTokens.ts). */
  readonly serviceAccountTokens = new ServiceAccountTokens();
  /** Test hook: permissions granted before RBAC is asked (auth.ts AllowRule). */
  readonly allowRules: AllowRule[] = [];
  /** Fault injection for the review endpoints only (reviewFaults.ts). */
  readonly reviewFaults = new ReviewFaults();
  /** What the stand-in kubelet's containers wrote, for pods/log (containerLogs.ts, kubelet.ts). */
  readonly containerLogs = new ContainerLogStore();
  /** Fault injection for the kubelet behind pods/log: unreachable, or answering an error. */
  readonly podLogFaults = new PodLogFaults();
  /** The pods the stand-in kubelet runs now (kubelet.ts): their processes end when the emulator stops. */
  readonly localPods = new Set<{ kill(): void }>();
  private readonly counts = new Map<string, number>();
  private readonly storageInitializing = new StorageInitializing();
  private server?: Server;
  private inAfterWrite = false;
  /** Collects what a write left (controllers/gc.ts), after the write. */
  private readonly garbage: GarbageCollector;
  port = 0;

  private constructor(
    private readonly opts: Required<Omit<EmulatorOptions, 'now' | 'tls'>> & { now: () => Date },
    private readonly tls?: EmulatorOptions['tls'],
  ) {
    this.tokens.set(opts.adminToken, ADMIN);
    this.registry.add(customResourceDefinitions);
    registerBuiltins(this.registry);
    this.garbage = new GarbageCollector(this.store, this.registry);
    for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      this.seed(this.registry.find('', 'v1', 'namespaces')!, {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: ns },
      });
    }
    for (const { resource, object } of BOOTSTRAP_POLICY) {
      this.seed(this.registry.find('rbac.authorization.k8s.io', 'v1', resource)!, object);
    }
    // kube-controller-manager fills admin/edit/view from the system:aggregate-to-* roles.
    while (aggregateClusterRoles(this.store));
    // The watch cache starts after bootstrap: watches from these rvs get the in-stream 410 (06 #29).
    this.store.forgetHistory();
    this.controllerHooks.push(clusterRoleAggregationHook(this.store));
  }

  static async start(options: EmulatorOptions = {}): Promise<KubeEmulator> {
    const emu = new KubeEmulator(
      {
        adminToken: options.adminToken ?? ADMIN_TOKEN,
        bookmarkLeadMs: options.bookmarkLeadMs ?? 1000,
        tooLargeRvWaitMs: options.tooLargeRvWaitMs ?? 3000,
        now: options.now ?? (() => new Date()),
      },
      options.tls,
    );
    const handler = (req: IncomingMessage, res: ServerResponse) => void emu.handle(req, res);
    emu.server = options.tls
      ? createTlsServer({ ...options.tls, maxHeaderSize: MAX_HEADER_BYTES }, handler)
      : createServer({ maxHeaderSize: MAX_HEADER_BYTES }, handler);
    await new Promise<void>((resolve) => emu.server!.listen(0, '127.0.0.1', resolve));
    emu.port = (emu.server.address() as AddressInfo).port;
    return emu;
  }

  get url(): string {
    return `${this.tls ? 'https' : 'http'}://127.0.0.1:${this.port}`;
  }

  get adminToken(): string {
    return this.opts.adminToken;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.reviewFaults.release();
    for (const pod of this.localPods) pod.kill();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  now(): Date {
    return this.opts.now();
  }

  /**
   * Adds a static bearer token for a user (a token-file user: any name and groups; the API server
   * adds system:authenticated). ServiceAccount tokens come from TokenRequest, or serviceAccountToken().
   */
  addToken(token: string, user: User): void {
    this.tokens.set(token, user);
  }

  /**
   * A ServiceAccount's token in one call: namespace and ServiceAccount created when missing,
   * `grants` bound (e.g. `[{ clusterRole: 'edit', namespace: 'team-a' }]`), a TokenRequest for the
   * API server's audience (or `audiences`) lasting `expirationSeconds` (default 3600, min 600).
   */
  serviceAccountToken(
    namespace: string,
    name: string,
    options?: { grants?: Grant[]; audiences?: string[]; expirationSeconds?: number },
  ): Promise<ServiceAccountCredentials> {
    return serviceAccountToken(this, namespace, name, options);
  }

  /** A bearer token for the User `name` in `groups` (static, not a JWT; TokenReview knows it). */
  userToken(name: string, groups: string[] = []): string {
    return userToken(this, name, groups);
  }

  /** Binds a User, Group or ServiceAccount to a ClusterRole or Role (a new binding each call). */
  grant(subject: Subject, what: Grant): Promise<Obj> {
    return grant(this, subject, what);
  }

  private authenticators(): TokenAuthenticators {
    return {
      staticTokens: this.tokens,
      serviceAccountTokens: this.serviceAccountTokens,
      store: this.store,
      now: () => this.now(),
    };
  }

  /** TokenReview's answer: the request authenticator run on one bearer token. */
  reviewToken(token: string, audiences?: string[]): { user: User; audiences: string[] } | { error: string } {
    return reviewToken(token, this.authenticators(), audiences);
  }

  /** Stored objects of a resource (plural, optionally `group/plural`), optionally in one namespace. */
  objects(resource: string, namespace?: string): Obj[] {
    const type = this.typeByName(resource);
    return this.store.list(resourceKey(type), namespace);
  }

  typeByName(resource: string): ResourceType {
    const [a, b] = resource.includes('/') ? resource.split('/') : [undefined, resource];
    const type = this.registry.all().find((t) => t.resource === b && (a === undefined || t.group === a));
    if (!type) throw new Error(`unknown resource ${resource}`);
    return type;
  }

  /**
   * Fault injection: the next `count` lists and watches of `resource` (a plural) answer 429
   * "storage is (re)initializing" with Retry-After: 1, as a real server does while the storage of
   * a new CRD initialises (faults.ts).
   */
  answerStorageInitializing(resource: string, count: number): void {
    this.storageInitializing.add(resource, count);
  }

  /** Requests served so far, keyed `verb resource` (e.g. `patch scheduledjobs/status`). */
  requestCounts(): Record<string, number> {
    return Object.fromEntries([...this.counts.entries()].sort());
  }

  resetRequestCounts(): void {
    this.counts.clear();
  }

  /** Each open watch's end, and what it watches. */
  private readonly openWatches = new Map<() => void, OpenWatch>();

  /** The watches open now: what a client keeps in its caches. */
  watchesOpen(): OpenWatch[] {
    return [...this.openWatches.values()];
  }

  /**
   * Ends every open watch after the watch cache forgot its history: clients that re-watch from
   * their last resourceVersion get the in-stream 410 and must re-list (06-watch #29).
   */
  expireWatches(): void {
    // Other writes moved the revision on while the cache was rebuilt.
    this.store.nextRv();
    this.store.forgetHistory();
    for (const end of [...this.openWatches.keys()]) end();
  }

  /** Plays the CronJob controller for one scheduled time (controllers/cronjob.ts). */
  fireCronJob(namespace: string, name: string, scheduledTime: Date): Obj {
    return fireCronJob(this, namespace, name, scheduledTime);
  }

  /** One CronJob controller sync at `now()`: fires what is due, as the real controller would. */
  syncCronJob(namespace: string, name: string): Obj | null {
    return syncCronJob(this, namespace, name);
  }

  /** `kubectl create job JOB --from=cronjob/CRON`. */
  createJobFromCronJob(namespace: string, cronName: string, jobName: string): Obj {
    return createJobFromCronJob(this, namespace, cronName, jobName);
  }

  /** One Job controller sync: pod creation, status and conditions from the pod's phase. */
  syncJob(namespace: string, name: string): Obj {
    return syncJob(this, namespace, name);
  }

  /**
   * One pass of the TTL-after-finished controller at `now()`: finished Jobs whose
   * ttlSecondsAfterFinished has passed are deleted, their pods with them (controllers/ttlAfterFinished.ts).
   */
  expireFinishedJobs(namespace?: string): Obj[] {
    return expireFinishedJobs(this, namespace);
  }

  /** Runs the garbage collector now (it also runs after every write). */
  collectGarbage(): void {
    this.garbage.touchEverything();
    this.garbage.collect(() => this.now());
  }

  /** etcd compaction (06-watch note): old continue tokens and Exact lists expire. */
  compact(): void {
    this.store.compact();
  }

  namespaceState(ns: string): 'missing' | 'active' | 'terminating' {
    const o = this.store.get('/namespaces', undefined, ns);
    if (!o) return 'missing';
    return o.metadata.deletionTimestamp ? 'terminating' : 'active';
  }

  /** Stores an object as if created through the API, without a request. */
  seed(type: ResourceType, obj: Obj): Obj {
    const ctx = this.internalContext(type, obj.metadata.namespace);
    return create(this, ctx, clone(obj)).body;
  }

  internalContext(
    type: ResourceType,
    namespace?: string,
    name?: string,
    subresource?: string,
  ): RequestContext {
    return {
      method: 'POST',
      info: {
        kind: 'resource',
        path: '',
        group: type.group,
        version: type.version,
        resource: type.resource,
        namespace,
        name,
        subresource,
      },
      type,
      query: new URLSearchParams(),
      rawBody: '',
      contentType: 'application/json',
      accept: 'application/json',
      user: ADMIN,
      warnings: [],
      dryRun: false,
      fieldValidation: 'Ignore',
      userAgent: INTERNAL_USER_AGENT,
    };
  }

  onStored(type: ResourceType, obj: Obj, event: 'ADDED' | 'MODIFIED' | 'DELETED'): void {
    if (type.resource === 'namespaces' && type.group === '' && event === 'ADDED') {
      createDefaultServiceAccount(this, obj.metadata.name);
    }
    if (type === customResourceDefinitions) {
      const key = resourceKey(type);
      if (event === 'ADDED') {
        // The apiextensions controllers act after the create has answered (01 #4 has no conditions).
        setImmediate(() => {
          const sameGroup = this.store
            .list(key)
            .filter((c) => c.spec.group === obj.spec.group && c.metadata.name !== obj.metadata.name);
          establish(obj, this.now(), (crd) => this.store.put(key, crd, 'MODIFIED'), this.registry, sameGroup);
        });
      } else if (event === 'MODIFIED') {
        reestablish(obj, this.registry);
      } else {
        unregister(obj, this.registry);
      }
    }
  }

  afterWrite(): void {
    if (this.inAfterWrite) return;
    this.inAfterWrite = true;
    try {
      for (let i = 0; i < 100; i++) {
        if (this.garbage.hasWork()) this.garbage.collect(() => this.now());
        let more = false;
        for (const hook of this.controllerHooks) more = hook() || more;
        if (!namespaceControllerPass(this.store, this.registry, this.now()) && !more) break;
      }
    } finally {
      this.inAfterWrite = false;
    }
  }

  /** Controllers that react to writes (namespace cleanup, …) register here. */
  readonly controllerHooks: (() => boolean)[] = [];

  private count(verb: string, info: RouteInfo): void {
    const res = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
    const key = `${verb} ${res}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    let rawBody = body.toString('utf8');
    const url = new URL(req.url ?? '/', 'http://localhost');
    const warnings: string[] = [];
    try {
      if (String(req.headers['content-type'] ?? '').split(';')[0] === PROTOBUF_TYPE) {
        // Handlers read JSON: a protobuf body continues as the JSON it encodes.
        rawBody = JSON.stringify(decodeProtobufBody(body));
        req.headers['content-type'] = 'application/json';
      }
      const user = authenticate(req.headers.authorization, this.authenticators(), (w) =>
        warnings.push(warning(w)),
      );
      if (Object.keys(req.headers).some((h) => h.startsWith('impersonate-'))) {
        throw notEmulated('impersonation (Impersonate-* headers)');
      }
      // The API server authorizes every request, resource or not, before it routes it.
      const attributes = requestAttributes(req.method ?? 'GET', url.pathname, url.searchParams);
      if (await this.injectedReviewFault(req, res, attributes)) return;
      this.authorize(user, attributes);
      const info = route(url.pathname);
      const result = await this.dispatch(req, res, info, url.searchParams, rawBody, user, warnings);
      if (result) this.send(res, result.status, result.body, warnings);
    } catch (e) {
      if (e instanceof PlainNotFound) {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('404 page not found\n');
        return;
      }
      const err =
        e instanceof ApiError
          ? e
          : new ApiError(500, 'InternalError', `emulator error: ${(e as Error).stack}`);
      if (!res.headersSent) this.send(res, err.code, err.toStatus(), warnings);
      else res.end();
    }
  }

  private send(res: ServerResponse, status: number, body: unknown, warnings: string[]): void {
    const aggregatedDiscovery = (body as { kind?: string } | null)?.kind === 'APIGroupDiscoveryList';
    const headers: Record<string, string | string[]> = {
      'content-type': aggregatedDiscovery ? AGGREGATED_DISCOVERY_TYPE : 'application/json',
    };
    if (warnings.length) headers.warning = warnings;
    // As apiserver's ErrorNegotiated: a Status that asks the client to wait says so in a header too.
    const retryAfter = (body as { details?: { retryAfterSeconds?: number } } | null)?.details
      ?.retryAfterSeconds;
    if (retryAfter) headers['retry-after'] = String(retryAfter);
    res.writeHead(status, headers);
    res.end(JSON.stringify(body));
  }

  private async dispatch(
    req: IncomingMessage,
    res: ServerResponse,
    info: RouteInfo,
    query: URLSearchParams,
    rawBody: string,
    user: User,
    warnings: string[],
  ): Promise<HandlerResult | undefined> {
    const method = req.method ?? 'GET';
    const accept = String(req.headers.accept ?? '');
    if (info.kind === 'version') return { status: 200, body: VERSION_INFO };
    if (info.kind === 'openapi') {
      const url = new URL(req.url ?? '/', 'http://localhost');
      this.count('get', {
        ...info,
        resource: url.pathname === '/openapi/v3' ? 'openapi/v3' : 'openapi/v3/*',
      });
      if (serveOpenApiV3(req, res, url, this.registry, this.store)) return undefined;
      throw notEmulated('OpenAPI v2 documents (/openapi/v2)');
    }
    if (info.kind === 'discovery') {
      const isCore = info.path.startsWith('/api/') || info.path === '/api';
      return {
        status: 200,
        body: discovery(this.registry, info.group, info.version, isCore, `127.0.0.1:${this.port}`, accept),
      };
    }
    if (info.kind !== 'resource') throw new PlainNotFound();
    const type = this.registry.find(info.group, info.version, info.resource);
    if (!type) {
      if (info.group === '' || this.registry.groups().includes(info.group)) {
        throw new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
      }
      throw new PlainNotFound();
    }
    if (type.deprecationWarning) warnings.push(warning(type.deprecationWarning));
    const reviewRequest = Boolean(type.review) && method === 'POST' && !info.name;
    if (type.notEmulated && !reviewRequest) throw notEmulated(type.notEmulated);
    const isWatch = method === 'GET' && ['true', '1'].includes(query.get('watch') ?? '');
    const verb = verbOf(method, info, isWatch);
    this.count(verb, info);
    const initializing = this.storageInitializing.take(verb, info.resource);
    if (initializing) throw initializing;
    const ctx: RequestContext = {
      method,
      info,
      type,
      query,
      rawBody,
      contentType: String(req.headers['content-type'] ?? ''),
      accept,
      userAgent: String(req.headers['user-agent'] ?? ''),
      user,
      warnings,
      dryRun: false,
      fieldValidation: 'Warn',
    };
    if (['POST', 'PUT', 'PATCH', 'DELETE'].includes(method)) readWriteOptions(ctx, method);
    if (reviewRequest) return type.review!(this, ctx, parseBody(ctx) as Obj);
    if (info.subresource === 'scale' && type.scale) return scaleSubresource(this, ctx);
    if (info.subresource === 'log' && resourceKey(type) === '/pods' && method === 'GET') {
      servePodLog(this, ctx, res);
      return undefined;
    }
    if (info.subresource && !['status'].includes(info.subresource)) {
      if (method === 'GET' && !type.subresources.includes(info.subresource)) return get(this, ctx);
      if (method === 'POST') return subresourcePost(this, ctx);
      throw notEmulated(`${method} on subresource ${info.resource}/${info.subresource}`);
    }
    if (info.subresource === 'status' && !type.subresources.includes('status')) {
      throw new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
    }
    switch (method) {
      case 'GET':
        if (info.name) return get(this, ctx);
        if (isWatch) {
          watch(this, ctx, res, {
            bookmarkLeadMs: this.opts.bookmarkLeadMs,
            track: (end) => {
              this.openWatches.set(end, {
                resource: info.resource,
                namespace: info.namespace ?? null,
                labelSelector: query.get('labelSelector') ?? '',
              });
              return () => this.openWatches.delete(end);
            },
          });
          return undefined;
        }
        return list(this, ctx, { tooLargeWaitMs: this.opts.tooLargeRvWaitMs });
      case 'POST':
        if (info.name)
          throw new ApiError(
            405,
            'MethodNotAllowed',
            'the server does not allow this method on the requested resource',
          );
        return create(this, ctx, parseBody(ctx));
      case 'PUT':
        return update(this, ctx, parseBody(ctx));
      case 'PATCH':
        return patch(this, ctx);
      case 'DELETE':
        if (!info.name) throw notEmulated('deletecollection');
        return del(this, ctx);
      default:
        throw notEmulated(`method ${method}`);
    }
  }

  /**
   * The authorizer chain of `--authorization-mode=Node,RBAC`: system:masters (the privileged-group
   * authorizer, no reason), then the test's allow rules, then RBAC over the stored Roles and
   * bindings; `reason` as a SubjectAccessReview reports it (12-auth #28, #31). The Node
   * authorizer is not emulated: node identities get RBAC only.
   */
  decide(user: User, a: Attributes): { allowed: boolean; reason?: string } {
    if (user.groups.includes('system:masters')) return { allowed: true };
    if (allowedByRules(this.allowRules, user, a)) return { allowed: true };
    const rbac = rbacAuthorize(this.store, user, a);
    return rbac.reason ? rbac : { allowed: rbac.allowed };
  }

  /**
   * The rule resolvers' answer (SelfSubjectRulesReview): RBAC's rules, never incomplete for a
   * user the Node authorizer does not know. The allowRules test hook lists no rules.
   */
  rulesFor(
    user: User,
    namespace: string,
  ): { resourceRules: Obj[]; nonResourceRules: Obj[]; incomplete: boolean; error: string } {
    return { ...rbacRulesFor(this.store, user, namespace), incomplete: false };
  }

  private authorize(user: User, a: Attributes): void {
    const decision = this.decide(user, a);
    if (!decision.allowed) throw forbidden(user, a, decision.reason ?? '');
  }

  /**
   * A review request while a test injects a fault (reviewFaults.ts): after authentication and
   * before authorization, where API Priority and Fairness sits. Returns whether it answered.
   */
  private async injectedReviewFault(
    req: IncomingMessage,
    res: ServerResponse,
    a: Attributes,
  ): Promise<boolean> {
    const isReview =
      req.method === 'POST' &&
      a.path === undefined &&
      (a.group === 'authentication.k8s.io' || a.group === 'authorization.k8s.io') &&
      (REVIEW_RESOURCES as readonly string[]).includes(a.resource);
    const action = isReview ? this.reviewFaults.take(a.resource) : null;
    if (!action) return false;
    switch (action.kind) {
      case 'hold':
        await action.until;
        // Stopped while held: the connection is gone.
        return res.destroyed;
      case 'reset':
        req.socket.destroy();
        return true;
      case 'error':
        throw action.error;
      case 'plain':
        res.writeHead(action.status, action.headers);
        res.end(action.body);
        return true;
    }
  }
}

function verbOf(method: string, info: RouteInfo, isWatch: boolean): string {
  switch (method) {
    case 'GET':
      return info.name ? 'get' : isWatch ? 'watch' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return info.name ? 'delete' : 'deletecollection';
    default:
      return method.toLowerCase();
  }
}

const OPTIONS_KIND: Record<string, string> = {
  POST: 'CreateOptions',
  PUT: 'UpdateOptions',
  PATCH: 'PatchOptions',
  DELETE: 'DeleteOptions',
};

/** dryRun and fieldValidation with the 422s of 14 #12 and #23. */
function readWriteOptions(ctx: RequestContext, method: string): void {
  const kind = OPTIONS_KIND[method]!;
  const dryRun = ctx.query.getAll('dryRun');
  if (dryRun.some((d) => d !== 'All')) {
    throw invalid(kind, 'meta.k8s.io', '', [
      {
        type: 'NotSupported',
        field: 'dryRun',
        detail: `Unsupported value: []string{${dryRun.map((d) => JSON.stringify(d)).join(', ')}}: supported values: "All"`,
      },
    ]);
  }
  ctx.dryRun = dryRun.length > 0;
  const fv = ctx.query.get('fieldValidation');
  if (fv !== null && method !== 'DELETE') {
    if (!['', 'Ignore', 'Strict', 'Warn'].includes(fv)) {
      throw invalid(kind, 'meta.k8s.io', '', [
        fieldErr.notSupported('fieldValidation', fv, ['', 'Ignore', 'Strict', 'Warn']),
      ]);
    }
    if (fv) ctx.fieldValidation = fv as FieldValidation;
  }
}

function parseBody(ctx: RequestContext): unknown {
  try {
    return JSON.parse(ctx.rawBody);
  } catch (e) {
    throw new ApiError(
      400,
      'BadRequest',
      `${ctx.type.kind} in version "${ctx.type.version}" cannot be handled as a ${ctx.type.kind}: ${(e as Error).message}`,
    );
  }
}
