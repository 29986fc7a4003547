import { ApiError, badRequest } from '../errors';
import { clone, deepEqual, isPlainObject, rfc3339, type Obj } from '../types';
import { conflictError } from './conflicts';
import { FieldSet } from './fieldSet';
import { capUpdateManagers, decodeManagedFields, encodeManagedFields } from './managedFields';
import type { ManagedKind } from './resourceTypes';
import { compare, toFieldSet, validateTyped } from './typedValue';
import {
  applyManagers,
  ApplyConflicts,
  managerIdentity,
  updateManagers,
  type ApplyResult,
  type ManagerEntry,
  type Managers,
  type UpdaterScope,
} from './updater';

/**
 * The API server's field manager (apimachinery's managedfields): the layers around
 * structured-merge-diff that name managers, stamp times, strip metadata from the owned sets,
 * start tracking objects that had none, and ease the move from kubectl's client-side apply.
 */

/** Fields nobody owns: identity and server-set metadata (stripMetaManager). */
const STRIPPED = FieldSet.of([
  ['f:apiVersion'],
  ['f:kind'],
  ['f:metadata'],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation'].map((f) => [
    'f:metadata',
    `f:${f}`,
  ]),
  ['f:metadata', 'f:managedFields'],
  ['f:metadata', 'f:resourceVersion'],
]);

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** One write as the field manager sees it. */
export interface ManagedWrite {
  kind: ManagedKind;
  /** `status` for writes through /status. */
  subresource?: string;
  now: Date;
}

function scopeOf(w: ManagedWrite): UpdaterScope {
  return { type: w.kind.type, ignored: w.kind.ignored(w.subresource) };
}

/** ObjectMeta's lists and maps are omitempty: an empty one is no value at all (07 #10). */
const OMITTED_WHEN_EMPTY = ['labels', 'annotations', 'finalizers', 'ownerReferences'];

/** The object as the field manager compares it: without managedFields, metadata as Go encodes it. */
function withoutManagedFields(o: Obj): Obj {
  const c = clone(o);
  if (!isPlainObject(c.metadata)) return c;
  delete c.metadata.managedFields;
  for (const k of OMITTED_WHEN_EMPTY) {
    const v = c.metadata[k];
    if ((Array.isArray(v) && v.length === 0) || (isPlainObject(v) && Object.keys(v).length === 0)) {
      delete c.metadata[k];
    }
  }
  return c;
}

function entryOf(
  w: ManagedWrite,
  manager: string,
  operation: ManagerEntry['operation'],
): Omit<ManagerEntry, 'fields'> {
  const e: Omit<ManagerEntry, 'fields'> = { manager, operation, apiVersion: w.kind.apiVersion };
  if (w.subresource) e.subresource = w.subresource;
  return e;
}

/**
 * A non-apply write by `manager`: it takes the fields it added or changed (managedFieldsUpdater
 * runs the merge as "current-operation" and folds that into the manager's entry, with a new time).
 */
function recordUpdate(w: ManagedWrite, before: Obj, after: Obj, managers: Managers, manager: string): void {
  const current = entryOf(w, '\u0000current-operation', 'Update');
  updateManagers(scopeOf(w), before, after, managers, current);
  const id = managerIdentity(current);
  const taken = managers.get(id)?.fields.difference(STRIPPED);
  managers.delete(id);
  if (!taken || taken.empty()) return;
  const entry = entryOf(w, manager, 'Update');
  const previous = managers.get(managerIdentity(entry))?.fields;
  managers.set(managerIdentity(entry), {
    ...entry,
    fields: previous ? taken.union(previous) : taken,
    time: rfc3339(w.now),
  });
}

/** `[]` or `[{}]` sent in a write: the client resets managedFields (isResetManagedFields). */
function isReset(sent: unknown): boolean {
  if (!Array.isArray(sent)) return false;
  return (
    sent.length === 0 || (sent.length === 1 && isPlainObject(sent[0]) && Object.keys(sent[0]).length === 0)
  );
}

function decodedOrEmpty(entries: unknown): Managers {
  try {
    return decodeManagedFields(entries);
  } catch {
    return new Map();
  }
}

/**
 * The managedFields a create, update or non-apply patch stores (FieldManager.UpdateNoErrors):
 * entries the client sent replace the live ones (not through a subresource; `[]` or `[{}]`
 * clears them); an object that has none stays untracked; objects the schema cannot type lose
 * them. Undefined means none.
 */
export function managedFieldsOfUpdate(
  w: ManagedWrite,
  live: Obj | undefined,
  next: Obj,
  manager: string,
): Obj[] | undefined {
  const sent: unknown = next.metadata?.managedFields;
  let managers: Managers;
  if (w.subresource) managers = decodedOrEmpty(live?.metadata?.managedFields);
  else if (isReset(sent)) managers = new Map();
  else {
    managers = decodedOrEmpty(sent);
    if (managers.size === 0) managers = decodedOrEmpty(live?.metadata?.managedFields);
  }
  // A create is always tracked; an update of an object without managedFields is not.
  if (live && managers.size === 0) return undefined;
  const before = live ? withoutManagedFields(live) : w.kind.zero();
  const after = withoutManagedFields(next);
  const type = w.kind.type;
  if (validateTyped(before, type, true).length || validateTyped(after, type, true).length) return undefined;
  recordUpdate(w, before, after, managers, manager);
  capUpdateManagers(managers);
  return encodeManagedFields(managers);
}

function gvkString(apiVersion: unknown, kind: unknown): string {
  const av = typeof apiVersion === 'string' ? apiVersion : '';
  const [group, version] = av.includes('/') ? av.split('/', 2) : ['', av];
  return `${group}/${version}, Kind=${typeof kind === 'string' ? kind : ''}`;
}

/** A failure the server reports without a Status reason (500, InternalError-less). */
function untypedError(message: string): ApiError {
  return new ApiError(500, '', message);
}

function joinErrors(errs: string[]): string {
  return errs.length === 1 ? errs[0]! : ['errors:', ...errs.map((e) => `  ${e}`)].join('\n');
}

/**
 * The fields kubectl's client-side apply set that the live object still has as they were: a
 * `kubectl apply --server-side` may take them without conflict (lastAppliedManager).
 */
function takeableFromLastApplied(w: ManagedWrite, live: Obj): FieldSet | undefined {
  const text = live.metadata?.annotations?.[LAST_APPLIED];
  if (typeof text !== 'string' || !text) return undefined;
  let last: unknown;
  try {
    last = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isPlainObject(last) || last.apiVersion !== w.kind.apiVersion) return undefined;
  const type = w.kind.type;
  if (validateTyped(last, type, false).length || validateTyped(live, type, false).length) return undefined;
  const c = compare(last, live, type);
  return toFieldSet(last, type).difference(c.modified).difference(c.added).difference(c.removed);
}

/** Nulls that pruning left where the merged object had values (emptied maps and lists). */
function dropEmptied(value: unknown, merged: unknown): void {
  if (!isPlainObject(value) || !isPlainObject(merged)) return;
  for (const [k, v] of Object.entries(value)) {
    if (v === null && merged[k] !== null) delete value[k];
    else dropEmptied(v, merged[k]);
  }
}

export interface ApplyOutcome {
  /** The object the apply makes (managedFields included); the live one when nothing changed. */
  object: Obj;
}

/**
 * Server-side apply of `config` by `manager` to `live` (undefined: the object does not exist yet).
 * Throws the server's errors: 400 for a wrong kind or managedFields in the body, 500 for a body
 * the schema cannot type, 409 for conflicts.
 */
export function applyConfiguration(
  w: ManagedWrite,
  live: Obj | undefined,
  config: Obj,
  manager: string,
  force: boolean,
): ApplyOutcome {
  if (config.apiVersion !== w.kind.apiVersion || config.kind !== w.kind.kind) {
    throw badRequest(`invalid object type: ${gvkString(config.apiVersion, config.kind)}`);
  }
  let managers: Managers;
  try {
    managers = decodeManagedFields(live?.metadata?.managedFields);
  } catch (e) {
    throw untypedError(`failed to decode managed fields: ${(e as Error).message}`);
  }
  const type = w.kind.type;
  const current = live ? withoutManagedFields(live) : w.kind.zero();
  // Fields of an object nobody tracked yet belong to "before-first-apply" (skipNonAppliedManager).
  if (live && managers.size === 0) recordUpdate(w, w.kind.zero(), current, managers, 'before-first-apply');
  if (isPlainObject(config.metadata) && config.metadata.managedFields != null) {
    throw badRequest('metadata.managedFields must be nil');
  }
  const meta = isPlainObject(config.metadata) ? config.metadata : {};
  const where = `${meta.namespace ?? ''}/${meta.name ?? ''}; ${gvkString(config.apiVersion, config.kind)}`;
  const patchErrors = validateTyped(config, type, false);
  if (patchErrors.length) {
    throw untypedError(`failed to create typed patch object (${where}): ${joinErrors(patchErrors)}`);
  }
  const liveErrors = validateTyped(current, type, true);
  if (liveErrors.length) {
    throw untypedError(`failed to create typed live object (${where}): ${joinErrors(liveErrors)}`);
  }
  const applier = entryOf(w, manager, 'Apply');
  const attempt = (forced: boolean): ApplyResult =>
    applyManagers(scopeOf(w), current, config, new Map(managers), applier, forced);
  let result: ApplyResult;
  try {
    result = attempt(force);
  } catch (e) {
    if (!(e instanceof ApplyConflicts)) throw e;
    const takeable = manager === 'kubectl' ? takeableFromLastApplied(w, current) : undefined;
    const remaining = e.conflicts.filter((c) => !takeable?.has(c.path));
    if (remaining.length) throw conflictError(remaining);
    result = attempt(true);
  }
  const id = managerIdentity(applier);
  const own = result.managers.get(id);
  if (own) {
    const fields = own.fields.difference(STRIPPED);
    if (fields.empty()) result.managers.delete(id);
    else result.managers.set(id, { ...own, fields });
  }
  let object = current;
  const applied = result.managers.get(id);
  if (result.object !== undefined) {
    object = result.object as Obj;
    dropEmptied(object, current);
    if (applied) applied.time = rfc3339(w.now);
  }
  object = clone(object);
  // A created object keeps what was applied, not the empty values of the zero object it was merged into.
  if (!live) withoutZeroFill(object, current, config);
  // kubectl's server-side apply keeps its client-side annotation up to date (lastAppliedUpdater).
  if (manager === 'kubectl' && typeof object.metadata?.annotations?.[LAST_APPLIED] === 'string') {
    const lastApplied = clone(config);
    if (isPlainObject(lastApplied.metadata?.annotations))
      delete lastApplied.metadata.annotations[LAST_APPLIED];
    object.metadata.annotations[LAST_APPLIED] = `${JSON.stringify(sortedKeys(lastApplied))}\n`;
  }
  capUpdateManagers(result.managers);
  const encoded = encodeManagedFields(result.managers);
  if (!isPlainObject(object.metadata)) object.metadata = {};
  if (encoded) object.metadata.managedFields = encoded;
  else delete object.metadata.managedFields;
  return { object };
}

/** Drops from `object` the parts that only the zero object gave it (`strategy: {}`, `creationTimestamp: null`). */
function withoutZeroFill(object: Obj, zero: Obj, config: Obj): void {
  for (const [k, v] of Object.entries(object)) {
    if (!(k in zero)) continue;
    if (!isPlainObject(config) || !(k in config)) {
      if (deepEqual(v, zero[k])) delete object[k];
    } else if (isPlainObject(v) && isPlainObject(zero[k])) {
      withoutZeroFill(v, zero[k] as Obj, config[k] as Obj);
    }
  }
}

/** Go's JSON of an unstructured object: map keys sorted at every level. */
function sortedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedKeys);
  if (!isPlainObject(v)) return v;
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, sortedKeys(v[k])]),
  );
}
