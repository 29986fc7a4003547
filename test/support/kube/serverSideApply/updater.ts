import { deepEqual } from '../types';
import { FieldSet, type PathElement } from './fieldSet';
import {
  compare,
  ensureNamedFieldsAreMembers,
  merge,
  removeItems,
  toFieldSet,
  type Comparison,
} from './typedValue';
import type { TypeNode } from './typeNodes';

/** One managedFields entry while it is worked on: who, how, and the fields it owns. */
export interface ManagerEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  subresource?: string;
  /** RFC 3339 (seconds); absent when the server never set one. */
  time?: string;
  fields: FieldSet;
}

/** managedFields by manager identity (name, operation, subresource; and apiVersion for updaters). */
export type Managers = Map<string, ManagerEntry>;

export function managerIdentity(
  e: Pick<ManagerEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>,
): string {
  return JSON.stringify({
    manager: e.manager,
    operation: e.operation,
    ...(e.operation === 'Update' ? { apiVersion: e.apiVersion } : {}),
    ...(e.subresource ? { subresource: e.subresource } : {}),
  });
}

export interface Conflict {
  owner: ManagerEntry;
  path: PathElement[];
}

/** An apply that would change fields other managers own (merge.Conflicts). */
export class ApplyConflicts extends Error {
  constructor(readonly conflicts: Conflict[]) {
    super('apply conflicts');
  }
}

/** The schema of the objects and the fields the request may not change (reset fields). */
export interface UpdaterScope {
  type: TypeNode;
  ignored: FieldSet;
}

function filtered(c: Comparison, ignored: FieldSet): Comparison {
  return {
    added: c.added.recursiveDifference(ignored),
    removed: c.removed.recursiveDifference(ignored),
    modified: c.modified.recursiveDifference(ignored),
  };
}

/**
 * Takes what changed from `live` to `next` away from every manager but `workflow`; without
 * `force`, changes to fields another manager owns are conflicts. Returns the unfiltered comparison.
 */
function reassign(
  scope: UpdaterScope,
  live: unknown,
  next: unknown,
  managers: Managers,
  workflow: string,
  force: boolean,
): Comparison {
  const all = compare(live, next, scope.type);
  const changed = filtered(all, scope.ignored);
  const taken = changed.modified.union(changed.added);
  const conflicts: Conflict[] = [];
  const lost = new Map<string, FieldSet>();
  for (const [id, entry] of managers) {
    if (id === workflow) continue;
    const conflict = entry.fields.intersection(taken);
    if (!conflict.empty()) {
      for (const path of conflict.paths()) conflicts.push({ owner: entry, path });
      lost.set(id, conflict);
    }
  }
  if (!force && conflicts.length) throw new ApplyConflicts(conflicts);
  for (const [id, entry] of managers) {
    if (id === workflow) continue;
    let fields = entry.fields;
    const conflict = lost.get(id);
    if (conflict) fields = fields.difference(conflict);
    if (!changed.removed.empty()) fields = fields.difference(changed.removed);
    if (fields.empty()) managers.delete(id);
    else managers.set(id, { ...entry, fields });
  }
  return all;
}

/**
 * A non-apply write (Updater.Update): the writer takes every field it added or changed, from
 * everyone; fields it removed leave every owner.
 */
export function updateManagers(
  scope: UpdaterScope,
  live: unknown,
  next: unknown,
  managers: Managers,
  writer: Omit<ManagerEntry, 'fields'>,
): Managers {
  const id = managerIdentity(writer);
  const all = reassign(scope, live, next, managers, id, true);
  const before = managers.get(id)?.fields ?? new FieldSet();
  const fields = before
    .difference(all.removed)
    .union(all.modified)
    .union(all.added)
    .recursiveDifference(scope.ignored);
  if (fields.empty()) managers.delete(id);
  else managers.set(id, { ...writer, fields });
  return managers;
}

/**
 * Removes what the applier owned before and no longer applies, unless another manager owns it
 * (Updater.prune: the fields, list items and map keys it alone set go away).
 */
function prune(
  scope: UpdaterScope,
  merged: unknown,
  managers: Managers,
  lastApplied: FieldSet | undefined,
): unknown {
  if (!lastApplied || lastApplied.empty()) return merged;
  const t = scope.type;
  const named = (s: FieldSet) => ensureNamedFieldsAreMembers(s, t);
  const last = named(lastApplied);
  const firstPass = removeItems(merged, last, t);
  let owned = new FieldSet();
  for (const entry of managers.values()) owned = owned.union(entry.fields);
  const mergedSet = named(toFieldSet(merged, t));
  const keptOwned = removeItems(
    merged,
    mergedSet.difference(named(toFieldSet(firstPass, t)).union(named(owned))),
    t,
  );
  const dangling = mergedSet.difference(named(toFieldSet(keptOwned, t))).intersection(last);
  return removeItems(merged, dangling, t);
}

export interface ApplyResult {
  /** The object after the apply, or undefined when it equals the live one. */
  object: unknown;
  managers: Managers;
}

/**
 * Server-side apply (Updater.Apply): merges the configuration into the live object, makes the
 * applier own exactly what it applied, prunes what it stopped applying, and refuses changes to
 * fields other managers own unless forced.
 */
export function applyManagers(
  scope: UpdaterScope,
  live: unknown,
  config: unknown,
  managers: Managers,
  applier: Omit<ManagerEntry, 'fields'>,
  force: boolean,
): ApplyResult {
  const id = managerIdentity(applier);
  const merged = merge(live, config, scope.type);
  const lastApplied = managers.get(id)?.fields;
  const fields = toFieldSet(config, scope.type).recursiveDifference(scope.ignored);
  managers.set(id, { ...applier, time: managers.get(id)?.time, fields });
  const next = prune(scope, merged, managers, lastApplied);
  reassign(scope, live, next, managers, id, force);
  if (fields.empty()) managers.delete(id);
  return { object: deepEqual(live, next) ? undefined : next, managers };
}
