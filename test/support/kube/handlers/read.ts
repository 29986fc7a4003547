import { ApiError, badRequest, notEmulated, notFound } from '../errors';
import { apiVersionOf, present, resourceKey, type ResourceType } from '../resources';
import { META_FIELDS, matchesLabels, parseFieldSelector, parseLabelSelector, quoteChar } from '../selectors';
import type { Obj } from '../types';
import type { HandlerResult, RequestContext, ServerServices } from './context';

export function get(svc: ServerServices, ctx: RequestContext): HandlerResult {
  const type = ctx.type;
  refuseAlternateRepresentations(ctx);
  const ns = type.namespaced ? ctx.info.namespace : undefined;
  const obj = present(type, svc.store.get(resourceKey(type), ns, ctx.info.name!));
  // A subresource the kind lacks reads as not found (05-status #17 `/scale`).
  if (!obj || (ctx.info.subresource && !type.subresources.includes(ctx.info.subresource))) {
    throw notFound(type.resource, type.group, ctx.info.name!);
  }
  return { status: 200, body: obj };
}

function refuseAlternateRepresentations(ctx: RequestContext): void {
  if (/as=Table/.test(ctx.accept)) throw notEmulated('server-side Table output (Accept: as=Table)');
}

export interface Filter {
  matches(o: Obj): boolean;
}

/** labelSelector and fieldSelector of a list or watch, parsed with the server's errors. */
export function selectorFilter(
  type: ResourceType & { fieldLabels?: Record<string, (o: Obj) => string | undefined> },
  query: URLSearchParams,
): Filter {
  const labels = parseLabelSelector(query.get('labelSelector') ?? '');
  const fieldSel = query.get('fieldSelector');
  const fields = fieldSel
    ? parseFieldSelector(fieldSel, { ...META_FIELDS, ...(type.fieldLabels ?? {}) })
    : () => true;
  return { matches: (o) => matchesLabels(labels, o.metadata?.labels) && fields(o) };
}

interface ContinueToken {
  v: string;
  rv: number;
  start: string;
}

function encodeContinue(t: ContinueToken): string {
  return Buffer.from(JSON.stringify(t)).toString('base64');
}

function decodeContinue(raw: string): ContinueToken {
  const bytes = Buffer.from(raw, 'base64');
  const text = bytes.toString('latin1');
  const first = text.trimStart()[0];
  if (first !== '{') {
    throw badRequest(
      `invalid continue token: continue key is not valid: invalid character ${quoteChar(first ?? '')} looking for beginning of value`,
    );
  }
  try {
    return JSON.parse(bytes.toString('utf8')) as ContinueToken;
  } catch (e) {
    throw badRequest(`invalid continue token: continue key is not valid: ${(e as Error).message}`);
  }
}

export function validateListParams(query: URLSearchParams, watch: boolean): void {
  const match = query.get('resourceVersionMatch');
  const rv = query.get('resourceVersion');
  const sendInitial = query.get('sendInitialEvents');
  const causes: { reason: string; message: string; field: string }[] = [];
  if (sendInitial !== null) {
    if (!watch) {
      causes.push({
        reason: 'FieldValueForbidden',
        message: 'Forbidden: sendInitialEvents is forbidden for list',
        field: 'sendInitialEvents',
      });
    } else if (match !== 'NotOlderThan') {
      causes.push({
        reason: 'FieldValueForbidden',
        message: 'Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
        field: 'resourceVersionMatch',
      });
    }
  }
  if (match !== null) {
    if (watch && sendInitial === null) {
      causes.push({
        reason: 'FieldValueForbidden',
        message:
          'Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
        field: 'resourceVersionMatch',
      });
    } else if (!watch && !rv) {
      causes.push({
        reason: 'FieldValueForbidden',
        message: 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
        field: 'resourceVersionMatch',
      });
    }
  }
  causes.sort((a, b) => a.field.localeCompare(b.field));
  if (causes.length) {
    const msg = causes.map((c) => `${c.field}: ${c.message}`);
    throw new ApiError(
      422,
      'Invalid',
      `ListOptions.meta.k8s.io "" is invalid: ${msg.length === 1 ? msg[0] : `[${msg.join(', ')}]`}`,
      { group: 'meta.k8s.io', kind: 'ListOptions', causes },
    );
  }
}

export async function list(
  svc: ServerServices,
  ctx: RequestContext,
  opts: { tooLargeWaitMs: number },
): Promise<HandlerResult> {
  const type = ctx.type;
  const q = ctx.query;
  refuseAlternateRepresentations(ctx);
  validateListParams(q, false);
  const filter = selectorFilter(type, q);
  const current = svc.store.currentRv();
  const rvParam = q.get('resourceVersion');
  const match = q.get('resourceVersionMatch');
  if (rvParam && rvParam !== '0') {
    const rv = Number(rvParam);
    if (rv > current) {
      // The watch cache waits ~3 s for the rv to arrive, then gives up (06-watch #37).
      await new Promise((r) => setTimeout(r, opts.tooLargeWaitMs));
      throw new ApiError(
        504,
        'Timeout',
        `Timeout: Too large resource version: ${rv}, current: ${svc.store.currentRv()}`,
        {
          causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
          retryAfterSeconds: 1,
        },
      );
    }
    if (match === 'Exact') {
      if (rv < svc.store.compactedRv()) {
        throw new ApiError(410, 'Expired', 'The resourceVersion for the provided list is too old.');
      }
      throw notEmulated('resourceVersionMatch=Exact list at a past resourceVersion (no MVCC history)');
    }
  }
  const ns = type.namespaced ? ctx.info.namespace : undefined;
  let items = svc.store
    .list(resourceKey(type), ns)
    .map((o) => present(type, o))
    .filter((o) => filter.matches(o));
  let listRv = current;
  const cont = q.get('continue');
  if (cont) {
    const token = decodeContinue(cont);
    // rv -1 is the token a 410 hands out: continue from the current state (06-watch #33).
    if (token.rv !== -1 && token.rv < svc.store.compactedRv()) {
      throw new ApiError(
        410,
        'Expired',
        'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
        undefined,
        { continue: encodeContinue({ v: 'meta.k8s.io/v1', rv: -1, start: token.start }) },
      );
    }
    // The token's start key ends in \0: the next page begins strictly after the last item.
    items = items.filter((o) => itemKey(type, o) >= token.start);
    if (token.rv !== -1) listRv = token.rv;
  }
  const metadata: Obj = {};
  const limit = Number(q.get('limit') ?? 0);
  if (limit > 0 && items.length > limit) {
    const remaining = items.length - limit;
    items = items.slice(0, limit);
    metadata.continue = encodeContinue({
      v: 'meta.k8s.io/v1',
      rv: listRv,
      start: `${itemKey(type, items[items.length - 1]!)}\u0000`,
    });
    // With a label selector the server cannot know how many would match (02-cr #39).
    if (!q.get('labelSelector') && !q.get('fieldSelector')) metadata.remainingItemCount = remaining;
  } else if (type.custom) {
    metadata.continue = '';
  }
  metadata.resourceVersion = String(listRv);
  if (/as=PartialObjectMetadataList/.test(ctx.accept)) {
    // The list's own metadata as any list's, but an unpaged one says no `continue` at all (02-cr #42).
    const { continue: next, ...rest } = metadata;
    return {
      status: 200,
      body: {
        kind: 'PartialObjectMetadataList',
        apiVersion: 'meta.k8s.io/v1',
        metadata: next ? metadata : rest,
        items: items.map((o) => ({
          kind: 'PartialObjectMetadata',
          apiVersion: 'meta.k8s.io/v1',
          metadata: o.metadata,
        })),
      },
    };
  }
  // Built-in lists carry items without kind/apiVersion (10-lease #18); custom resource lists keep them.
  if (!type.custom) {
    items = items.map((o) => {
      const { kind: _k, apiVersion: _a, ...rest } = o;
      void _k;
      void _a;
      return rest;
    });
  }
  return { status: 200, body: { apiVersion: apiVersionOf(type), items, kind: type.listKind, metadata } };
}

function itemKey(type: ResourceType, o: Obj): string {
  return type.namespaced && !o.metadata.namespace
    ? o.metadata.name
    : `${o.metadata.namespace ?? ''}/${o.metadata.name}`.replace(/^\//, '');
}
