/** Kubernetes `Status` failures, shaped like the transcripts' bodies (see kube-api README "Status bodies"). */

interface StatusCause {
  reason: string;
  message: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: StatusDetails,
    readonly metadata: Record<string, unknown> = {},
  ) {
    super(message);
  }

  toStatus(): Record<string, unknown> {
    const body: Record<string, unknown> = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: this.metadata,
      status: 'Failure',
      message: this.message,
    };
    // A failure the server did not classify has no reason at all (500s of server-side apply).
    if (this.reason) body.reason = this.reason;
    if (this.details) body.details = this.details;
    body.code = this.code;
    return body;
  }
}

/** A field error as apimachinery's field.Error renders it. */
export interface FieldError {
  type:
    | 'Invalid'
    | 'Required'
    | 'NotSupported'
    | 'Duplicate'
    | 'TypeInvalid'
    | 'Forbidden'
    | 'TooLong'
    | 'TooMany'
    | 'NotFound';
  field: string;
  /** The message without the field path, e.g. `Invalid value: "x": must be ...`. */
  detail: string;
}

const causeReason: Record<FieldError['type'], string> = {
  Invalid: 'FieldValueInvalid',
  Required: 'FieldValueRequired',
  NotSupported: 'FieldValueNotSupported',
  Duplicate: 'FieldValueDuplicate',
  TypeInvalid: 'FieldValueTypeInvalid',
  Forbidden: 'FieldValueForbidden',
  TooLong: 'FieldValueTooLong',
  TooMany: 'FieldValueTooMany',
  NotFound: 'FieldValueNotFound',
};

/** Go's %#v of a value as field errors print it: strings quoted, numbers bare. */
function goValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null || value === undefined) return '<nil>';
  return JSON.stringify(value);
}

export const fieldErr = {
  invalid: (field: string, value: unknown, msg: string): FieldError => ({
    type: 'Invalid',
    field,
    detail: `Invalid value: ${goValue(value)}: ${msg}`,
  }),
  invalidRaw: (field: string, rendered: string, msg: string): FieldError => ({
    type: 'Invalid',
    field,
    detail: `Invalid value: ${rendered}: ${msg}`,
  }),
  required: (field: string, msg?: string): FieldError => ({
    type: 'Required',
    field,
    detail: msg ? `Required value: ${msg}` : 'Required value',
  }),
  notSupported: (field: string, value: unknown, allowed: string[]): FieldError => ({
    type: 'NotSupported',
    field,
    detail: `Unsupported value: ${goValue(value)}: supported values: ${allowed.map((a) => JSON.stringify(a)).join(', ')}`,
  }),
  duplicate: (field: string, rendered: string): FieldError => ({
    type: 'Duplicate',
    field,
    detail: `Duplicate value: ${rendered}`,
  }),
  forbidden: (field: string, msg: string): FieldError => ({
    type: 'Forbidden',
    field,
    detail: `Forbidden: ${msg}`,
  }),
  notFound: (field: string, value: unknown): FieldError => ({
    type: 'NotFound',
    field,
    detail: `Not found: ${goValue(value)}`,
  }),
  typeInvalid: (field: string, rendered: string, msg: string): FieldError => ({
    type: 'TypeInvalid',
    field,
    detail: `Invalid value: ${rendered}: ${msg}`,
  }),
};

function renderFieldErrors(errs: FieldError[]): string {
  // The aggregate message lists identical errors once; causes keep them all (07 #6).
  const parts = [...new Set(errs.map((e) => (e.field ? `${e.field}: ${e.detail}` : e.detail)))];
  return parts.length === 1 ? parts[0]! : `[${parts.join(', ')}]`;
}

/** 422 Invalid: `Kind.group "name" is invalid: …` (details.kind is the Kind here). */
export function invalid(
  kind: string,
  group: string,
  name: string,
  errs: FieldError[],
  opts: { qualifier?: string; detailsKind?: string } = {},
): ApiError {
  const qualified = opts.qualifier ?? (group ? `${kind}.${group}` : kind);
  const details: StatusDetails = {};
  if (name) details.name = name;
  if (group) details.group = group;
  details.kind = opts.detailsKind ?? kind;
  details.causes = errs.map((e) => {
    const c: StatusCause = { reason: causeReason[e.type], message: e.detail };
    if (e.field) c.field = e.field;
    return c;
  });
  return new ApiError(
    422,
    'Invalid',
    `${qualified} "${name}" is invalid: ${renderFieldErrors(errs)}`,
    details,
  );
}

function qualifiedResource(resource: string, group: string): string {
  return group ? `${resource}.${group}` : resource;
}

/** details as the server serialises them: empty group omitted (07 #27 configmaps). */
export function details(name: string, group: string, kind: string): StatusDetails {
  const d: StatusDetails = {};
  if (name) d.name = name;
  if (group) d.group = group;
  d.kind = kind;
  return d;
}

export function notFound(resource: string, group: string, name: string): ApiError {
  return new ApiError(
    404,
    'NotFound',
    `${qualifiedResource(resource, group)} "${name}" not found`,
    details(name, group, resource),
  );
}

export function alreadyExists(resource: string, group: string, name: string): ApiError {
  return new ApiError(
    409,
    'AlreadyExists',
    `${qualifiedResource(resource, group)} "${name}" already exists`,
    details(name, group, resource),
  );
}

export function conflict(resource: string, group: string, name: string, why: string): ApiError {
  return new ApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedResource(resource, group)} "${name}": ${why}`,
    details(name, group, resource),
  );
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

/** What the emulator does not serve: loud, distinct from anything a real server says. */
export function notEmulated(what: string): ApiError {
  return new ApiError(501, 'NotImplemented', `not emulated: ${what}`);
}

export const MODIFIED_CONFLICT =
  'the object has been modified; please apply your changes to the latest version and try again';
