import { fieldErr, type FieldError } from '../errors';
import { isPlainObject, type Obj } from '../types';
import {
  validateFieldRef,
  validateLocalDescendingPath,
  validateResourceFieldRef,
} from './containerValidation';
import { isDns1123Label } from './nameRules';
import { volumeSources } from './podSpec';
import { compareQuantities, parseQuantity } from './quantity';

/** ValidateVolumes of core/v1: one source per volume, the sources that pods here use, names. */

const FILE_MODE_ERROR = 'must be a number between 0 and 0777 (octal), both inclusive';
/** What a downward API volume file may read (validVolumeDownwardAPIFieldPathExpressions). */
const VOLUME_FIELD_PATHS = [
  'metadata.annotations',
  'metadata.labels',
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
];
const HOST_PATH_TYPES = [
  '',
  'BlockDevice',
  'CharDevice',
  'Directory',
  'DirectoryOrCreate',
  'File',
  'FileOrCreate',
  'Socket',
];

const items = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);

function validateMode(mode: unknown, path: string): FieldError[] {
  return typeof mode === 'number' && (mode > 0o777 || mode < 0)
    ? [fieldErr.invalid(path, mode, FILE_MODE_ERROR)]
    : [];
}

/** validateLocalNonReservedPath: a relative path without `..`, not starting with `..`. */
function validateLocalNonReservedPath(p: string, path: string): FieldError[] {
  const errs = validateLocalDescendingPath(p, path);
  if (p.startsWith('..')) errs.push(fieldErr.invalid(path, p, "must not start with '..'"));
  return errs;
}

function validateKeyToPath(kp: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!kp.key) errs.push(fieldErr.required(`${path}.key`));
  if (!kp.path) errs.push(fieldErr.required(`${path}.path`));
  errs.push(...validateLocalNonReservedPath(String(kp.path ?? ''), `${path}.path`));
  errs.push(...validateMode(kp.mode, `${path}.mode`));
  return errs;
}

/** validateDownwardAPIVolumeFile: upstream reports most of it at the source's path, not the item's. */
function validateDownwardFile(file: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!file.path) errs.push(fieldErr.required(`${path}.path`));
  errs.push(...validateLocalNonReservedPath(String(file.path ?? ''), `${path}.path`));
  if (isPlainObject(file.fieldRef)) {
    errs.push(...validateFieldRef(file.fieldRef, VOLUME_FIELD_PATHS, `${path}.fieldRef`));
    if (isPlainObject(file.resourceFieldRef)) {
      errs.push(
        fieldErr.invalid(
          path,
          'resource',
          'fieldRef and resourceFieldRef can not be specified simultaneously',
        ),
      );
    }
  } else if (isPlainObject(file.resourceFieldRef)) {
    errs.push(...validateResourceFieldRef(file.resourceFieldRef, `${path}.resourceFieldRef`, true));
  } else {
    errs.push(fieldErr.required(path, 'one of fieldRef and resourceFieldRef is required'));
  }
  errs.push(...validateMode(file.mode, `${path}.mode`));
  return errs;
}

function validateProjected(projected: Obj, path: string): FieldError[] {
  const errs = validateMode(projected.defaultMode, `${path}.defaultMode`);
  const paths = new Set<string>();
  const claim = (p: unknown, value: unknown) => {
    if (!p) return;
    if (paths.has(String(p))) errs.push(fieldErr.invalid(path, value, 'conflicting duplicate paths'));
    else paths.add(String(p));
  };
  items(projected.sources).forEach((source, i) => {
    const at = `${path}.sources[${i}]`;
    let count = 0;
    for (const kind of ['secret', 'configMap']) {
      const s = source[kind];
      if (!isPlainObject(s)) continue;
      count++;
      if (!s.name) errs.push(fieldErr.required(`${at}.${kind}.name`));
      items(s.items).forEach((kp, j) => {
        errs.push(...validateKeyToPath(kp, `${at}.${kind}.items[${j}]`));
        claim(kp.path, s.name ?? '');
      });
    }
    if (isPlainObject(source.downwardAPI)) {
      count++;
      for (const file of items(source.downwardAPI.items)) {
        errs.push(...validateDownwardFile(file, `${at}.downwardAPI`));
        claim(file.path, file.path);
      }
    }
    const token = source.serviceAccountToken;
    if (isPlainObject(token)) {
      count++;
      const seconds = Number(token.expirationSeconds ?? 0);
      if (seconds < 600)
        errs.push(
          fieldErr.invalid(
            `${at}.serviceAccountToken.expirationSeconds`,
            seconds,
            'may not specify a duration less than 10 minutes',
          ),
        );
      if (seconds > 2 ** 32)
        errs.push(
          fieldErr.invalid(
            `${at}.serviceAccountToken.expirationSeconds`,
            seconds,
            'may not specify a duration larger than 2^32 seconds',
          ),
        );
      if (!token.path) errs.push(fieldErr.required(`${path}.path`));
      else errs.push(...validateLocalNonReservedPath(token.path, `${path}.path`));
    }
    if (isPlainObject(source.clusterTrustBundle)) count++;
    if (count > 1) errs.push(fieldErr.forbidden(at, 'may not specify more than 1 volume type per source'));
  });
  return errs;
}

function validateSource(kind: string, s: Obj, path: string): FieldError[] {
  switch (kind) {
    case 'emptyDir':
      return s.sizeLimit !== undefined &&
        compareQuantities(parseQuantity(String(s.sizeLimit)), { nanos: 0n, format: 'DecimalSI' }) < 0
        ? [fieldErr.forbidden(`${path}.sizeLimit`, 'SizeLimit field must be a valid resource quantity')]
        : [];
    case 'hostPath': {
      if (!s.path) return [fieldErr.required(`${path}.path`)];
      const errs = String(s.path).split('/').includes('..')
        ? [fieldErr.invalid(`${path}.path`, s.path, "must not contain '..'")]
        : [];
      if (!HOST_PATH_TYPES.includes(s.type ?? ''))
        errs.push(fieldErr.notSupported(`${path}.type`, s.type, HOST_PATH_TYPES));
      return errs;
    }
    case 'secret':
    case 'configMap': {
      const nameField = kind === 'secret' ? 'secretName' : 'name';
      const errs = s[nameField] ? [] : [fieldErr.required(`${path}.${nameField}`)];
      errs.push(...validateMode(s.defaultMode, `${path}.defaultMode`));
      items(s.items).forEach((kp, i) => errs.push(...validateKeyToPath(kp, `${path}.items[${i}]`)));
      return errs;
    }
    case 'downwardAPI': {
      const errs = validateMode(s.defaultMode, `${path}.defaultMode`);
      for (const file of items(s.items)) errs.push(...validateDownwardFile(file, path));
      return errs;
    }
    case 'projected':
      return validateProjected(s, path);
    case 'persistentVolumeClaim':
      return s.claimName ? [] : [fieldErr.required(`${path}.claimName`)];
    case 'csi':
      return s.driver ? [] : [fieldErr.required(`${path}.driver`)];
    case 'nfs':
      return [
        ...(s.server ? [] : [fieldErr.required(`${path}.server`)]),
        ...(s.path ? [] : [fieldErr.required(`${path}.path`)]),
      ];
    case 'ephemeral':
      return isPlainObject(s.volumeClaimTemplate) ? [] : [fieldErr.required(`${path}.volumeClaimTemplate`)];
    default:
      return [];
  }
}

/** ValidateVolumes: the volumes that validated (mounts may name only those), and the errors. */
export function validateVolumes(
  volumes: unknown,
  path: string,
): { byName: Map<string, Obj>; errs: FieldError[] } {
  const byName = new Map<string, Obj>();
  const errs: FieldError[] = [];
  items(volumes).forEach((v, i) => {
    const at = `${path}[${i}]`;
    const own: FieldError[] = [];
    const sources = volumeSources(v);
    sources.forEach((kind, n) => {
      if (n > 0) own.push(fieldErr.forbidden(`${at}.${kind}`, 'may not specify more than 1 volume type'));
      else own.push(...validateSource(kind, v[kind] as Obj, `${at}.${kind}`));
    });
    if (sources.length === 0) own.push(fieldErr.required(at, 'must specify a volume type'));
    if (!v.name) own.push(fieldErr.required(`${at}.name`));
    else own.push(...isDns1123Label(v.name).map((m) => fieldErr.invalid(`${at}.name`, v.name, m)));
    if (byName.has(v.name)) own.push(fieldErr.duplicate(`${at}.name`, JSON.stringify(v.name)));
    if (own.length === 0) byName.set(v.name, v);
    errs.push(...own);
  });
  return { byName, errs };
}
