import { alreadyExists, ApiError, conflict, fieldErr, invalid, MODIFIED_CONFLICT, notFound } from '../errors';
import { present, resourceKey, toStored, type ResourceType, type WriteContext } from '../resources';
import { clone, deepEqual, isPlainObject, rfc3339, type Obj } from '../types';
import { randomSuffix } from '../validation';
import { recordWrite } from '../serverSideApply/writes';
import { warning, type HandlerResult, type RequestContext, type ServerServices } from './context';
import { decodeObject, pruneUnknown } from './decode';

const SERVER_SET_META = [
  'uid',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'generation',
];

function hasStatus(type: ResourceType): boolean {
  return type.subresources.includes('status');
}

function validateAndNormalize(type: ResourceType, obj: Obj, ctx: WriteContext): void {
  const errs = type.validate?.(obj, ctx) ?? [];
  if (errs.length) throw invalid(type.kind, type.errorGroup ?? type.group, obj.metadata.name ?? '', errs);
  type.normalize?.(obj, ctx);
}

/** 403 for creates in a terminating namespace, 404 for a missing one (15-namespace #6/#7). */
function checkNamespace(svc: ServerServices, type: ResourceType, ns: string | undefined, name: string): void {
  if (!type.namespaced || ns === undefined) return;
  const state = svc.namespaceState(ns);
  if (state === 'missing') throw notFound('namespaces', '', ns);
  if (state === 'terminating') {
    throw new ApiError(
      403,
      'Forbidden',
      `${type.group ? `${type.resource}.${type.group}` : type.resource} "${name}" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`,
      {
        name,
        group: type.group,
        kind: type.resource,
        causes: [
          {
            reason: 'NamespaceTerminating',
            message: `namespace ${ns} is being terminated`,
            field: 'metadata.namespace',
          },
        ],
      },
    );
  }
}

/** `applied`: server-side apply made the object and its managedFields (handlers/apply.ts). */
interface WriteOptions {
  applied?: boolean;
}

export function create(
  svc: ServerServices,
  ctx: RequestContext,
  body: unknown,
  opts: WriteOptions = {},
): HandlerResult {
  const type = ctx.type;
  const obj = decodeObject(ctx, body);
  const meta = obj.metadata;
  const ns = ctx.info.namespace;
  if (type.namespaced) {
    if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== ns) {
      throw new ApiError(
        400,
        'BadRequest',
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
    meta.namespace = ns;
  } else {
    delete meta.namespace;
  }
  const nameGenerated = !meta.name && Boolean(meta.generateName);
  if (nameGenerated) meta.name = `${meta.generateName}${randomSuffix()}`;
  if (!meta.name) {
    throw invalid(type.kind, type.group, '', [
      fieldErr.required('metadata.name', 'name or generateName is required'),
    ]);
  }
  for (const k of [...SERVER_SET_META, 'resourceVersion', 'selfLink']) delete meta[k];
  if (hasStatus(type)) delete obj.status;
  // Set before defaulting: Job defaults put the uid into the selector and labels (09 #2).
  meta.uid = svc.store.newUid();
  meta.creationTimestamp = rfc3339(svc.now());
  if (type.generation) meta.generation = 1;
  const wctx: WriteContext = {
    operation: 'create',
    dryRun: ctx.dryRun,
    nameGenerated,
    warnings: ctx.warnings,
  };
  type.defaults?.(obj, wctx);
  // Managed fields are computed on the decoded, defaulted object, before admission mutates it.
  if (!opts.applied) recordWrite(svc, ctx, undefined, obj, obj);
  // Admission (NamespaceLifecycle, then ServiceAccount …) runs before validation, as on the server.
  checkNamespace(svc, type, ns, meta.name);
  type.admit?.(obj, wctx, svc);
  validateAndNormalize(type, obj, wctx);
  for (const w of type.warnings?.(obj, wctx) ?? []) ctx.warnings.push(warning(w));
  const key = resourceKey(type);
  if (svc.store.get(key, meta.namespace, meta.name))
    throw alreadyExists(type.resource, type.group, meta.name);
  if (ctx.dryRun) return { status: 201, body: obj };
  const stored = svc.store.put(key, toStored(type, obj), 'ADDED');
  svc.onStored?.(type, stored, 'ADDED');
  svc.afterWrite();
  return { status: 201, body: present(type, svc.store.get(key, meta.namespace, meta.name) ?? stored) };
}

function storageKey(type: ResourceType, ns: string | undefined, name: string): string {
  const prefix = type.custom ? `/registry/${type.group}/${type.resource}` : `/registry/${type.resource}`;
  return ns ? `${prefix}/${ns}/${name}` : `${prefix}/${name}`;
}

/** The uid precondition failure the storage layer reports verbatim (03-concurrency #19, #24). */
function uidConflict(
  type: ResourceType,
  ns: string | undefined,
  name: string,
  wanted: string,
  actual: string,
) {
  return conflict(
    type.resource,
    type.group,
    name,
    `StorageError: invalid object, Code: 4, Key: ${storageKey(type, ns, name)}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${wanted}, UID in object meta: ${actual}`,
  );
}

/** Fields that make up the "spec" for generation purposes: everything but metadata and status. */
function specPart(o: Obj): Obj {
  const { metadata: _m, status: _s, ...rest } = o;
  void _m;
  void _s;
  return rest;
}

function comparable(o: Obj): Obj {
  const c = clone(o);
  delete c.metadata.resourceVersion;
  return c;
}

/**
 * PUT on the main resource or on /status (also the tail of every PATCH). Handles rv
 * preconditions, immutable metadata, generation, no-op writes (same rv, 03-concurrency #8), and the
 * last finalizer leaving a deleted object (07 #10).
 */
export function update(
  svc: ServerServices,
  ctx: RequestContext,
  body: unknown,
  opts: WriteOptions & {
    fromPatch?: boolean;
    old?: Obj;
    /** Stored even if nothing else changed (/scale taking over the replicas field, 18 #95). */
    alwaysWrite?: boolean;
  } = {},
): HandlerResult {
  const type = ctx.type;
  const name = ctx.info.name!;
  const ns = type.namespaced ? ctx.info.namespace : undefined;
  const key = resourceKey(type);
  const statusWrite = ctx.info.subresource === 'status';
  const incoming = opts.fromPatch ? (body as Obj) : decodeObject(ctx, body);
  if (opts.fromPatch) pruneUnknown(ctx, incoming);
  const meta = incoming.metadata as Obj;
  if (meta.name !== undefined && meta.name !== name) {
    throw new ApiError(
      400,
      'BadRequest',
      `the name of the object (${meta.name}) does not match the name on the URL (${name})`,
    );
  }
  if (type.namespaced && meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== ns) {
    throw new ApiError(
      400,
      'BadRequest',
      'the namespace of the provided object does not match the namespace sent on the request',
    );
  }
  const old = opts.old ?? present(type, svc.store.get(key, ns, name));
  if (!old) {
    if (meta.uid) throw uidConflict(type, ns, name, meta.uid, '');
    throw notFound(type.resource, type.group, name);
  }
  if (!meta.resourceVersion && type.custom && !opts.fromPatch) {
    throw invalid(
      type.resource,
      type.group,
      name,
      [fieldErr.invalidRaw('metadata.resourceVersion', '0x0', 'must be specified for an update')],
      { qualifier: `${type.resource}.${type.group}`, detailsKind: type.resource },
    );
  }
  if (meta.uid && meta.uid !== old.metadata.uid)
    throw uidConflict(type, ns, name, meta.uid, old.metadata.uid);
  if (meta.resourceVersion && meta.resourceVersion !== old.metadata.resourceVersion) {
    throw conflict(type.resource, type.group, name, MODIFIED_CONFLICT);
  }
  let next: Obj;
  if (statusWrite) {
    // Through /status only status changes (05-status #6: labels and spec sent there are ignored).
    next = clone(old);
    if (incoming.status === undefined) delete next.status;
    else next.status = incoming.status;
    if (opts.applied) next.metadata.managedFields = incoming.metadata.managedFields;
  } else {
    next = incoming;
    if (hasStatus(type)) {
      if (old.status === undefined) delete next.status;
      else next.status = clone(old.status);
    }
    for (const k of SERVER_SET_META) {
      if (old.metadata[k] === undefined) delete next.metadata[k];
      else next.metadata[k] = old.metadata[k];
    }
    next.metadata.namespace = old.metadata.namespace;
    if (!type.namespaced) delete next.metadata.namespace;
    next.metadata.name = name;
    delete next.metadata.selfLink;
  }
  if (next.metadata.managedFields === undefined) delete next.metadata.managedFields;
  next.metadata.resourceVersion = old.metadata.resourceVersion;
  const wctx: WriteContext = {
    operation: statusWrite ? 'status' : 'update',
    old,
    dryRun: ctx.dryRun,
    viaPatch: opts.fromPatch,
    warnings: ctx.warnings,
  };
  if (old.metadata.deletionTimestamp && !statusWrite) {
    const before = new Set<string>(old.metadata.finalizers ?? []);
    const added = ((next.metadata.finalizers ?? []) as string[]).filter((f) => !before.has(f));
    if (added.length) {
      const err = fieldErr.forbidden(
        'metadata.finalizers',
        `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`,
      );
      // The real server reports it twice (object-meta and strategy checks): 07 #6 has two causes.
      throw invalid(type.kind, type.group, name, [err, err]);
    }
  }
  type.defaults?.(next, wctx);
  // The field manager sees the decoded object before the strategy and validation; through /status
  // it sees the metadata changes the strategy then drops (05 #6).
  if (!opts.applied) recordWrite(svc, ctx, old, statusWrite ? incoming : next, next);
  validateAndNormalize(type, next, wctx);
  for (const w of type.warnings?.(next, wctx) ?? []) ctx.warnings.push(warning(w));
  if (type.generation && !deepEqual(specPart(next), specPart(old))) {
    next.metadata.generation = (old.metadata.generation ?? 0) + 1;
  }
  if (!opts.alwaysWrite && deepEqual(comparable(next), comparable(old))) return { status: 200, body: old };
  if (ctx.dryRun) return { status: 200, body: next };
  const finalizers = (next.metadata.finalizers ?? []) as string[];
  if (next.metadata.deletionTimestamp && finalizers.length === 0) {
    // The request that removes the last finalizer answers with the object as sent (old rv);
    // the DELETED event carries the object as last stored (README, 07 #10).
    svc.store.remove(key, ns, name);
    svc.onStored?.(type, old, 'DELETED');
    svc.afterWrite();
    if (next.metadata.finalizers && next.metadata.finalizers.length === 0) delete next.metadata.finalizers;
    return { status: 200, body: next };
  }
  if (isPlainObject(next.metadata) && Array.isArray(next.metadata.finalizers) && finalizers.length === 0) {
    delete next.metadata.finalizers;
  }
  const stored = svc.store.put(key, toStored(type, next), 'MODIFIED');
  svc.onStored?.(type, stored, 'MODIFIED');
  svc.afterWrite();
  return { status: 200, body: present(type, svc.store.get(key, ns, name) ?? stored) };
}
