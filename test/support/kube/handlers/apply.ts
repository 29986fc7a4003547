import { parse } from 'yaml';
import { badRequest, fieldErr, invalid, notFound, type FieldError } from '../errors';
import { present, resourceKey } from '../resources';
import { applyConfiguration } from '../serverSideApply/fieldManager';
import { managedWrite } from '../serverSideApply/writes';
import { isPlainObject, type Obj } from '../types';
import { warning, type HandlerResult, type RequestContext, type ServerServices } from './context';
import { create, update } from './write';

const FIELD_MANAGER_MAX_LENGTH = 128;

/** PatchOptions' checks for an apply (422 `PatchOptions.meta.k8s.io "" is invalid`, 04 #28). */
function checkOptions(manager: string | null): string {
  const errs: FieldError[] = [];
  if (!manager) errs.push(fieldErr.required('fieldManager', 'is required for apply patch'));
  else if (manager.length > FIELD_MANAGER_MAX_LENGTH) {
    errs.push({
      type: 'TooLong',
      field: 'fieldManager',
      detail: `Too long: may not be more than ${FIELD_MANAGER_MAX_LENGTH} bytes`,
    });
  }
  if (errs.length) throw invalid('PatchOptions', 'meta.k8s.io', '', errs);
  return manager!;
}

/** The body as sigs.k8s.io/yaml reads it (YAML 1.1, JSON included; a repeated key keeps the last). */
function decodeBody(raw: string): Obj {
  let body: unknown;
  try {
    body = parse(raw, { version: '1.1', uniqueKeys: false });
  } catch (e) {
    throw badRequest(`error decoding YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  if (!isPlainObject(body)) {
    throw badRequest(
      `error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${Array.isArray(body) ? 'array' : typeof body} into Go value of type map[string]interface {}`,
    );
  }
  return body;
}

/** fieldValidation for an apply: unknown fields already fail the typed conversion; duplicates remain. */
function checkDuplicateKeys(ctx: RequestContext): void {
  if (ctx.fieldValidation === 'Ignore') return;
  try {
    parse(ctx.rawBody, { version: '1.1', uniqueKeys: true });
  } catch (e) {
    const message = `error strict decoding YAML: ${(e as Error).message.split('\n')[0]}`;
    if (ctx.fieldValidation === 'Strict') throw badRequest(message);
    ctx.warnings.push(warning(message));
  }
}

/**
 * PATCH with application/apply-patch+yaml: server-side apply to the object, or its creation when
 * it does not exist; through /status to the status only (04 #21–#33).
 */
export function applyPatch(svc: ServerServices, ctx: RequestContext): HandlerResult {
  const type = ctx.type;
  const manager = checkOptions(ctx.query.get('fieldManager'));
  const force = ctx.query.get('force') === 'true';
  const config = decodeBody(ctx.rawBody);
  const name = ctx.info.name!;
  const ns = type.namespaced ? ctx.info.namespace : undefined;
  const live = present(type, svc.store.get(resourceKey(type), ns, name));
  const w = managedWrite(svc, ctx);
  // Subresources never create (their storage refuses forceAllowCreate).
  if (!live && w.subresource) throw notFound(type.resource, type.group, name);
  const { object } = applyConfiguration(w, live, config, manager, force);
  checkDuplicateKeys(ctx);
  const meta = object.metadata as Obj;
  if (type.namespaced) {
    if (meta.namespace && meta.namespace !== ns) {
      throw badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
    meta.namespace = ns;
  } else {
    delete meta.namespace;
  }
  if (!meta.name) {
    throw badRequest(
      `the name of the object (${name} based on URL) was undeterminable: name must be provided`,
    );
  }
  if (meta.name !== name) {
    throw badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${name})`);
  }
  // The body's duplicate keys were handled above: the create must not report them again.
  if (!live) return create(svc, { ...ctx, rawBody: '' }, object, { applied: true });
  return update(svc, ctx, object, { fromPatch: true, old: live, applied: true });
}
