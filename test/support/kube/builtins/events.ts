import { fieldErr, type FieldError } from '../errors';
import type { ResourceType } from '../resources';
import type { FieldGetters } from '../selectors';
import type { Obj } from '../types';
import { builtin } from './common';
import { parseMicroTime } from './microTime';

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
  defaults: coreDefaults,
  validate(obj) {
    const errs: FieldError[] = [];
    const ns = obj.involvedObject?.namespace;
    if (ns !== undefined && ns !== '' && ns !== obj.metadata.namespace) {
      errs.push(fieldErr.invalid('involvedObject.namespace', ns, 'does not match event.namespace'));
    }
    return errs;
  },
});

/** events.k8s.io/v1 validation texts use the internal (core) field names (11-events #14). */
function validateEventsV1(obj: Obj): FieldError[] {
  const errs: FieldError[] = [];
  if (!obj.eventTime) errs.push(fieldErr.required('eventTime'));
  if (typeof obj.note === 'string' && obj.note.length > 1024) {
    errs.push(fieldErr.invalid('message', '', 'can have at most 1024 characters'));
  }
  if (obj.type !== undefined && obj.type !== 'Normal' && obj.type !== 'Warning') {
    errs.push(fieldErr.invalid('type', '', `has invalid value: ${obj.type}`));
  }
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
