import type { RequestContext, ServerServices } from '../handlers/context';
import type { Obj } from '../types';
import { managedFieldsOfUpdate, type ManagedWrite } from './fieldManager';
import { managedKind } from './resourceTypes';

const FIELD_MANAGER_MAX_LENGTH = 128;

/**
 * Who a write is managed as: `?fieldManager=`, else the User-Agent up to its first `/`, printable
 * characters only, at most 128 bytes (`node-fetch`, `kubectl-client-side-apply` is kubectl's own).
 */
function managerOf(ctx: RequestContext): string {
  const explicit = ctx.query.get('fieldManager');
  if (explicit) return explicit;
  let out = '';
  for (const ch of (ctx.userAgent ?? '').split('/')[0]!) {
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) continue;
    if (Buffer.byteLength(out + ch) > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
  }
  return out;
}

export function managedWrite(svc: ServerServices, ctx: RequestContext): ManagedWrite {
  return {
    kind: managedKind(svc.store, ctx.type),
    subresource: ctx.info.subresource === 'status' ? 'status' : undefined,
    now: svc.now(),
  };
}

/**
 * Stores on `target` the managedFields of a non-apply write (create, update, JSON or merge patch)
 * that turned `live` (undefined on create) into `seen`.
 */
export function recordWrite(
  svc: ServerServices,
  ctx: RequestContext,
  live: Obj | undefined,
  seen: Obj,
  target: Obj,
): void {
  const managed = managedFieldsOfUpdate(managedWrite(svc, ctx), live, seen, managerOf(ctx));
  if (managed) target.metadata.managedFields = managed;
  else delete target.metadata.managedFields;
}
