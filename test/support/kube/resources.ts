import type { ScalePaths } from './customResources/scalePaths';
import type { FieldError } from './errors';
import type { HandlerResult, RequestContext, ServerServices } from './handlers/context';
import { compareKubeVersions } from './kubeVersions';
import type { Obj } from './types';

export interface WriteContext {
  /** 'create' | 'update' for the main resource, 'status' for writes through /status. */
  operation: 'create' | 'update' | 'status';
  old?: Obj;
  dryRun: boolean;
  /** The object came from applying a PATCH to the stored one. */
  viaPatch?: boolean;
  /** metadata.name was made from generateName (admission saw no name: messages say `pods is …`). */
  nameGenerated?: boolean;
  /** The request's Warning headers, for checks that warn (a finalizer without a domain, 18 #59). */
  warnings?: string[];
}

/** What the emulator knows about one kind of resource (the server's RESTStorage, reduced). */
export interface ResourceType {
  group: string;
  version: string;
  resource: string;
  kind: string;
  listKind: string;
  singular: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  /** Subresources served (status, binding, token, …); `status` splits spec and status writes. */
  subresources: string[];
  /** A custom resource's `/scale`: where its replicas and selector live. */
  scale?: ScalePaths;
  verbs: string[];
  custom: boolean;
  /** metadata.generation is kept (CRs, CronJob, Job, CRD …; not Namespace, Secret, Pod). */
  generation: boolean;
  storageVersionHash?: string;
  /**
   * The decoder's own failures (wrong JSON types, bad quantities): throws the 400; normalizes
   * values it parses (quantities, bytes). `viaPatch`: `obj` is the result of a PATCH.
   */
  decode?(obj: Obj, viaPatch: boolean): void;
  /** Paths of fields the schema does not know, pruned from `obj` in place (sorted). */
  prune?(obj: Obj): string[];
  defaults?(obj: Obj, ctx: WriteContext): void;
  /** Mutating admission after defaulting (the ServiceAccount plugin on pods); may refuse. */
  admit?(obj: Obj, ctx: WriteContext, svc: ServerServices): void;
  validate?(obj: Obj, ctx: WriteContext): FieldError[];
  /** Warnings of a write that validated (WarningsOnCreate / WarningsOnUpdate), without the `299 -`. */
  warnings?(obj: Obj, ctx: WriteContext): string[];
  /** Last step before storing (e.g. Secret stringData folding). */
  normalize?(obj: Obj, ctx: WriteContext): void;
  /** Propagation when DELETE names none (batch/v1 Jobs orphan their pods by default). */
  defaultPropagation?: 'Foreground' | 'Background' | 'Orphan';
  /** Extra field selectors (`involvedObject.name`, `status.phase` …) besides metadata.name/namespace. */
  fieldLabels?: Record<string, (o: Obj) => string | undefined>;
  /** Deletion that only marks the object (Namespace → Terminating). */
  markDeleted?(obj: Obj, now: Date): void;
  /** Refuse a delete (e.g. namespace `default`): throw an ApiError. */
  beforeDelete?(obj: Obj, svc: unknown): void;
  /** Group named in 422 messages when validation runs on another group's internal type (events.k8s.io). */
  errorGroup?: string;
  /** Listed in discovery, but every request is refused with 501 "not emulated: …". */
  notEmulated?: string;
  /** Two API versions of one stored kind share this key (core and events.k8s.io Events). */
  storageKey?: string;
  toStored?(obj: Obj): Obj;
  fromStored?(obj: Obj): Obj;
  /** A create-only review API (TokenReview, SubjectAccessReview …): answers without storing. */
  review?(svc: ServerServices, ctx: RequestContext, body: Obj): HandlerResult;
  /** Message prefix of strict-decoding and parse failures: `Kind in version "v1" cannot be handled as a Kind`. */
  decodeName?: string;
  /** A deprecated version: the Warning header every request to it gets (17 #171, #172). */
  deprecationWarning?: string;
}

export function resourceKey(t: Pick<ResourceType, 'group' | 'resource' | 'storageKey'>): string {
  return t.storageKey ?? `${t.group}/${t.resource}`;
}

/** The object as this API version shows it (events.k8s.io/v1 reads core Events). */
export function present(t: ResourceType, o: Obj): Obj;
export function present(t: ResourceType, o: Obj | undefined): Obj | undefined;
export function present(t: ResourceType, o: Obj | undefined): Obj | undefined {
  return o && t.fromStored ? t.fromStored(o) : o;
}

export function toStored(t: ResourceType, o: Obj): Obj {
  return t.toStored ? t.toStored(o) : o;
}

export function apiVersionOf(t: Pick<ResourceType, 'group' | 'version'>): string {
  return t.group ? `${t.group}/${t.version}` : t.version;
}

export const STANDARD_VERBS = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'update',
  'watch',
];

/** All served kinds: built-ins registered at start, custom resources as their CRDs become Established. */
export class Registry {
  private readonly types = new Map<string, ResourceType>();

  add(t: ResourceType): void {
    this.types.set(`${t.group}/${t.version}/${t.resource}`, t);
  }

  remove(group: string, version: string, resource: string): void {
    this.types.delete(`${group}/${version}/${resource}`);
  }

  find(group: string, version: string, resource: string): ResourceType | undefined {
    return this.types.get(`${group}/${version}/${resource}`);
  }

  byKind(apiVersion: string, kind: string): ResourceType | undefined {
    return this.all().find((t) => apiVersionOf(t) === apiVersion && t.kind === kind);
  }

  all(): ResourceType[] {
    return [...this.types.values()];
  }

  /** A group's versions, preferred first (Kubernetes version order, 17 #168). */
  groupVersions(group: string): string[] {
    return [
      ...new Set(
        this.all()
          .filter((t) => t.group === group)
          .map((t) => t.version),
      ),
    ].sort((a, b) => compareKubeVersions(b, a));
  }

  groups(): string[] {
    return [...new Set(this.all().map((t) => t.group))];
  }
}
