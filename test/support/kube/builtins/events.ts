import { fieldErr, notEmulated, type FieldError } from '../errors';
import type { ResourceType, WriteContext } from '../resources';
import type { FieldGetters } from '../selectors';
import { deepEqual, isPlainObject, type Obj } from '../types';
import { builtin } from './common';
import { decoding } from './decoding';
import { validateObjectMeta } from './metaValidation';
import { parseMicroTime } from './microTime';
import { isDns1123Subdomain, isQualifiedName } from './nameRules';

/**
 * Events are stored once (core v1 shape) and served by two APIs with their field mapping
 * (11-events #7, #8): note↔message, regarding↔involvedObject, reportingController↔reportingComponent,
 * deprecatedSource/FirstTimestamp/LastTimestamp/Count ↔ source/firstTimestamp/lastTimestamp/count.
 */
function coreDefaults(obj: Obj): void {
  if (obj.eventTime === undefined) obj.eventTime = null;
  if (obj.eventTime)
    obj.eventTime = parseMicroTime(obj.eventTime, 'Event in version "v1" cannot be handled as a Event');
  if (obj.series?.lastObservedTime)
    obj.series.lastObservedTime = parseMicroTime(
      obj.series.lastObservedTime,
      'Event in version "v1" cannot be handled as a Event',
    );
}

function pick(o: Obj, keys: [string, string][]): Obj {
  const out: Obj = {};
  for (const [to, from] of keys) if (o[from] !== undefined) out[to] = o[from];
  return out;
}

function toEventsV1(core: Obj): Obj {
  const out: Obj = {
    kind: 'Event',
    apiVersion: 'events.k8s.io/v1',
    metadata: core.metadata,
    eventTime: core.eventTime ?? null,
  };
  Object.assign(
    out,
    pick(core, [
      ['series', 'series'],
      ['reportingController', 'reportingComponent'],
      ['reportingInstance', 'reportingInstance'],
      ['action', 'action'],
      ['reason', 'reason'],
      ['regarding', 'involvedObject'],
      ['related', 'related'],
      ['note', 'message'],
      ['type', 'type'],
    ]),
  );
  out.deprecatedSource = core.source ?? {};
  out.deprecatedFirstTimestamp = core.firstTimestamp ?? null;
  out.deprecatedLastTimestamp = core.lastTimestamp ?? null;
  if (core.count) out.deprecatedCount = core.count;
  return out;
}

function toCore(ev: Obj): Obj {
  const out: Obj = { kind: 'Event', apiVersion: 'v1', metadata: ev.metadata };
  Object.assign(
    out,
    pick(ev, [
      ['involvedObject', 'regarding'],
      ['reason', 'reason'],
      ['message', 'note'],
    ]),
  );
  out.source = ev.deprecatedSource ?? {};
  out.firstTimestamp = ev.deprecatedFirstTimestamp ?? null;
  out.lastTimestamp = ev.deprecatedLastTimestamp ?? null;
  if (ev.deprecatedCount) out.count = ev.deprecatedCount;
  Object.assign(
    out,
    pick(ev, [
      ['type', 'type'],
      ['eventTime', 'eventTime'],
      ['series', 'series'],
      ['action', 'action'],
      ['related', 'related'],
      ['reportingComponent', 'reportingController'],
      ['reportingInstance', 'reportingInstance'],
    ]),
  );
  if (out.eventTime === undefined) out.eventTime = null;
  return out;
}

const ref = (o: Obj, k: string) => (f: string) => (o[k] ?? {})[f];

const CORE_FIELDS: FieldGetters = {
  'involvedObject.kind': (o) => ref(o, 'involvedObject')('kind'),
  'involvedObject.namespace': (o) => ref(o, 'involvedObject')('namespace'),
  'involvedObject.name': (o) => ref(o, 'involvedObject')('name'),
  'involvedObject.uid': (o) => ref(o, 'involvedObject')('uid'),
  'involvedObject.apiVersion': (o) => ref(o, 'involvedObject')('apiVersion'),
  'involvedObject.resourceVersion': (o) => ref(o, 'involvedObject')('resourceVersion'),
  'involvedObject.fieldPath': (o) => ref(o, 'involvedObject')('fieldPath'),
  reason: (o) => o.reason,
  reportingComponent: (o) => o.reportingComponent,
  source: (o) => o.source?.component,
  type: (o) => o.type,
};

const V1_FIELDS: FieldGetters = {
  'regarding.kind': (o) => ref(o, 'regarding')('kind'),
  'regarding.namespace': (o) => ref(o, 'regarding')('namespace'),
  'regarding.name': (o) => ref(o, 'regarding')('name'),
  'regarding.uid': (o) => ref(o, 'regarding')('uid'),
  'regarding.apiVersion': (o) => ref(o, 'regarding')('apiVersion'),
  'regarding.resourceVersion': (o) => ref(o, 'regarding')('resourceVersion'),
  'regarding.fieldPath': (o) => ref(o, 'regarding')('fieldPath'),
  reason: (o) => o.reason,
  reportingController: (o) => o.reportingController,
  type: (o) => o.type,
};

export const coreEvents: ResourceType = builtin({
  group: '',
  version: 'v1',
  resource: 'events',
  kind: 'Event',
  namespaced: true,
  shortNames: ['ev'],
  fieldLabels: CORE_FIELDS,
  ...decoding('v1', 'Event'),
  defaults: coreDefaults,
  validate: (obj) => legacyValidateEvent(obj, 'reportingComponent'),
});

const LENGTH_LIMITS: [string, number][] = [
  ['reportingInstance', 128],
  ['action', 128],
  ['reason', 128],
];

/**
 * legacyValidateEvent, on the core shape (what events.k8s.io/v1 converts to before validation,
 * so its errors use core/v1 field names, 11-events #14). `controllerField` is how the request's
 * version calls reportingController.
 */
function legacyValidateEvent(core: Obj, controllerField: string): FieldError[] {
  const errs: FieldError[] = [];
  const ns = core.metadata.namespace as string;
  const involvedNs = (core.involvedObject?.namespace ?? '') as string;
  if (!core.eventTime) {
    const mismatch = involvedNs === '' ? ns !== '' && ns !== 'default' : ns !== involvedNs;
    if (mismatch)
      errs.push(fieldErr.invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace'));
  } else {
    if (involvedNs === '' && ns !== 'default' && ns !== 'kube-system') {
      errs.push(fieldErr.invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace'));
    }
    const controller = String(core.reportingComponent ?? '');
    if (!controller) errs.push(fieldErr.required(controllerField));
    errs.push(...isQualifiedName(controller).map((m) => fieldErr.invalid(controllerField, controller, m)));
    for (const [f, limit] of LENGTH_LIMITS) {
      const v = String(core[f] ?? '');
      if (!v) errs.push(fieldErr.required(f));
      if (v.length > limit) errs.push(fieldErr.invalid(f, '', `can have at most ${limit} characters`));
    }
    if (Buffer.byteLength(String(core.message ?? '')) > 1024) {
      errs.push(fieldErr.invalid('message', '', 'can have at most 1024 characters'));
    }
  }
  errs.push(...isDns1123Subdomain(ns).map((m) => fieldErr.invalid('namespace', ns, m)));
  return errs;
}

/** ValidateEventCreate for events.k8s.io/v1: the legacy rules, then the strict ones (19 #175–#188). */
function validateEventsV1(obj: Obj, ctx: WriteContext): FieldError[] {
  const core = toCore(obj);
  const errs = legacyValidateEvent(core, 'reportingController');
  if (ctx.operation !== 'create') {
    if (!deepEqual(ctx.old?.series, obj.series)) errs.push(...validateSeries(core));
    return [...errs, ...immutableEventFields(core, toCore(ctx.old ?? {}))];
  }
  errs.push(...validateObjectMeta(obj.metadata, isDns1123Subdomain, true));
  errs.push(...validateSeries(core));
  if (!core.eventTime) errs.push(fieldErr.required('eventTime'));
  if (core.type !== 'Normal' && core.type !== 'Warning') {
    errs.push(fieldErr.invalid('type', '', `has invalid value: ${core.type ?? ''}`));
  }
  if (core.firstTimestamp) errs.push(fieldErr.invalid('firstTimestamp', '', 'needs to be unset'));
  if (core.lastTimestamp) errs.push(fieldErr.invalid('lastTimestamp', '', 'needs to be unset'));
  if (core.count) errs.push(fieldErr.invalid('count', '', 'needs to be unset'));
  if (core.source?.component || core.source?.host)
    errs.push(fieldErr.invalid('source', '', 'needs to be unset'));
  return errs;
}

/** ValidateEventUpdate's fixed fields (core names); structs print whole upstream (refused loudly). */
function immutableEventFields(core: Obj, old: Obj): FieldError[] {
  for (const f of ['involvedObject', 'source', 'firstTimestamp', 'lastTimestamp', 'eventTime', 'related']) {
    if (!deepEqual(core[f] ?? null, old[f] ?? null))
      throw notEmulated(`an events.k8s.io update that changes ${f}`);
  }
  const errs: FieldError[] = [];
  for (const f of [
    'reason',
    'message',
    'count',
    'type',
    'action',
    'reportingComponent',
    'reportingInstance',
  ]) {
    if ((core[f] ?? '') === (old[f] ?? '')) continue;
    const field = f === 'reportingComponent' ? 'reportingController' : f;
    errs.push(fieldErr.invalid(field, core[f] ?? (f === 'count' ? 0 : ''), 'field is immutable'));
  }
  return errs;
}

function validateSeries(core: Obj): FieldError[] {
  if (!isPlainObject(core.series)) return [];
  const errs: FieldError[] = [];
  if (!(core.series.count >= 2)) errs.push(fieldErr.invalid('series.count', '', 'should be at least 2'));
  if (!core.series.lastObservedTime) errs.push(fieldErr.required('series.lastObservedTime'));
  return errs;
}

export const eventsV1: ResourceType = builtin({
  group: 'events.k8s.io',
  version: 'v1',
  resource: 'events',
  kind: 'Event',
  namespaced: true,
  shortNames: ['ev'],
  storageKey: '/events',
  errorGroup: '',
  storageVersionHash: coreEvents.storageVersionHash,
  fieldLabels: V1_FIELDS,
  ...decoding('events.k8s.io/v1', 'Event'),
  defaults(obj) {
    if (obj.eventTime)
      obj.eventTime = parseMicroTime(obj.eventTime, 'Event in version "v1" cannot be handled as a Event');
    if (obj.series?.lastObservedTime)
      obj.series.lastObservedTime = parseMicroTime(
        obj.series.lastObservedTime,
        'Event in version "v1" cannot be handled as a Event',
      );
    obj.deprecatedSource = obj.deprecatedSource ?? {};
    obj.deprecatedFirstTimestamp = obj.deprecatedFirstTimestamp ?? null;
    obj.deprecatedLastTimestamp = obj.deprecatedLastTimestamp ?? null;
  },
  validate: validateEventsV1,
  toStored: toCore,
  fromStored: toEventsV1,
});
