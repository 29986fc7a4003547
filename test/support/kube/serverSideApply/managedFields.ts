import { isPlainObject, type Obj } from '../types';
import { FieldSet } from './fieldSet';
import { managerIdentity, type ManagerEntry, type Managers } from './updater';

/**
 * metadata.managedFields in and out: entries decoded into field sets by manager identity, and
 * encoded back in the server's order (operation, then the second of their time, then manager,
 * apiVersion, subresource: kube-api README on 17 #167).
 */

/** Decodes the entries; throws on what the server refuses to decode (operation, fieldsType, sets). */
export function decodeManagedFields(entries: unknown): Managers {
  const managers: Managers = new Map();
  if (entries === undefined || entries === null) return managers;
  if (!Array.isArray(entries)) throw new Error('managedFields must be a list');
  entries.forEach((raw, i) => {
    if (!isPlainObject(raw)) throw new Error(`managed fields entry ${i} is not an object`);
    const e = raw as Obj;
    if (e.operation !== 'Apply' && e.operation !== 'Update') {
      throw new Error('operation must be `Apply` or `Update`');
    }
    if (typeof e.apiVersion !== 'string' || e.apiVersion === '')
      throw new Error('apiVersion must not be empty');
    if (e.fieldsType === undefined || e.fieldsType === '') {
      throw new Error(`missing fieldsType in managed fields entry ${i}`);
    }
    if (e.fieldsType !== 'FieldsV1') {
      throw new Error(`invalid fieldsType ${JSON.stringify(e.fieldsType)} in managed fields entry ${i}`);
    }
    const entry: ManagerEntry = {
      manager: typeof e.manager === 'string' ? e.manager : '',
      operation: e.operation,
      apiVersion: e.apiVersion,
      fields: FieldSet.fromFieldsV1(e.fieldsV1 ?? {}),
    };
    if (typeof e.subresource === 'string' && e.subresource) entry.subresource = e.subresource;
    if (typeof e.time === 'string') entry.time = e.time;
    managers.set(managerIdentity(entry), entry);
  });
  return managers;
}

function seconds(time: string | undefined): number {
  return time ? Math.floor(Date.parse(time) / 1000) : 0;
}

function byServerOrder(a: ManagerEntry, b: ManagerEntry): number {
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return (
    cmp(a.operation, b.operation) ||
    seconds(a.time) - seconds(b.time) ||
    cmp(a.manager, b.manager) ||
    cmp(a.apiVersion, b.apiVersion) ||
    cmp(a.subresource ?? '', b.subresource ?? '')
  );
}

/** The entries as the server writes them (Go's ManagedFieldsEntry field order), or undefined if none. */
export function encodeManagedFields(managers: Managers): Obj[] | undefined {
  if (managers.size === 0) return undefined;
  return [...managers.values()].sort(byServerOrder).map((e) => {
    const out: Obj = { manager: e.manager, operation: e.operation, apiVersion: e.apiVersion };
    if (e.time) out.time = e.time;
    out.fieldsType = 'FieldsV1';
    out.fieldsV1 = e.fields.toFieldsV1();
    if (e.subresource) out.subresource = e.subresource;
    return out;
  });
}

const MAX_UPDATE_MANAGERS = 10;

/**
 * At most ten updaters are kept: the oldest are merged into one `ancient-changes` entry per
 * apiVersion (capManagersManager).
 */
export function capUpdateManagers(managers: Managers): void {
  const updaters = [...managers.entries()]
    .filter(([, e]) => e.operation === 'Update')
    .sort(([ia, a], [ib, b]) => seconds(a.time) - seconds(b.time) || (ia < ib ? -1 : ia > ib ? 1 : 0));
  let count = updaters.length;
  const firstOfVersion = new Map<string, string>();
  for (const [id, entry] of updaters) {
    if (count <= MAX_UPDATE_MANAGERS) break;
    const bucket = managerIdentity({
      manager: 'ancient-changes',
      operation: 'Update',
      apiVersion: entry.apiVersion,
    });
    const first = firstOfVersion.get(entry.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(entry.apiVersion, id);
      continue;
    }
    if (!managers.has(bucket)) {
      const moved = managers.get(first)!;
      managers.delete(first);
      managers.set(bucket, { ...moved, manager: 'ancient-changes', subresource: undefined });
    }
    const merged = managers.get(bucket)!;
    managers.set(bucket, { ...merged, fields: merged.fields.union(entry.fields), time: entry.time });
    managers.delete(id);
    count--;
  }
}
