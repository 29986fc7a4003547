import { isIP } from 'node:net';
import { fieldErr, type FieldError } from '../errors';
import type { ResourceType } from '../resources';
import { isPlainObject, type Obj } from '../types';
import { builtin } from './common';
import { decoding } from './decoding';
import { validateObjectMeta } from './metaValidation';
import {
  isDns1035Label,
  isDns1123Subdomain,
  isValidPortName,
  isValidPortNum,
  isWildcardDns1123Subdomain,
} from './nameRules';

/** networking.k8s.io/v1 Ingress: ValidateIngressSpec (19 #118–#132). */

const list = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);
const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];

function validateHost(host: string, path: string): FieldError[] {
  const rule = host.includes('*') ? isWildcardDns1123Subdomain : isDns1123Subdomain;
  return rule(host).map((m) => fieldErr.invalid(path, host, m));
}

function validateBackend(backend: Obj, path: string): FieldError[] {
  const resource = isPlainObject(backend.resource);
  const service = backend.service;
  if (resource && isPlainObject(service))
    return [fieldErr.invalid(path, '', 'cannot set both resource and service backends')];
  if (resource) {
    const r = backend.resource as Obj;
    const errs: FieldError[] = [];
    if (!r.kind) errs.push(fieldErr.required(`${path}.resource.kind`));
    if (!r.name) errs.push(fieldErr.required(`${path}.resource.name`));
    return errs;
  }
  if (!isPlainObject(service)) return [fieldErr.invalid(path, '', 'resource or service backend is required')];
  const errs: FieldError[] = [];
  if (!service.name) errs.push(fieldErr.required(`${path}.service.name`));
  else
    errs.push(
      ...isDns1035Label(service.name).map((m) => fieldErr.invalid(`${path}.service.name`, service.name, m)),
    );
  const name = service.port?.name as string | undefined;
  const number = service.port?.number as number | undefined;
  if (name && number) errs.push(fieldErr.invalid(path, '', 'cannot set both port name & port number'));
  else if (name)
    errs.push(...isValidPortName(name).map((m) => fieldErr.invalid(`${path}.service.port.name`, name, m)));
  else if (number)
    errs.push(
      ...isValidPortNum(number).map((m) => fieldErr.invalid(`${path}.service.port.number`, number, m)),
    );
  else errs.push(fieldErr.required(path, 'port name or number is required'));
  return errs;
}

function validatePath(p: Obj, path: string): FieldError[] {
  if (p.pathType === undefined) return [fieldErr.required(`${path}.pathType`, 'pathType must be specified')];
  const errs: FieldError[] = [];
  const value = String(p.path ?? '');
  if (p.pathType === 'Exact' || p.pathType === 'Prefix') {
    if (!value.startsWith('/'))
      errs.push(fieldErr.invalid(`${path}.path`, value, 'must be an absolute path'));
    for (const seq of ['//', '/./', '/../', '%2f', '%2F']) {
      if (value.includes(seq))
        errs.push(fieldErr.invalid(`${path}.path`, value, `must not contain '${seq}'`));
    }
    for (const suffix of ['/..', '/.']) {
      if (value.endsWith(suffix))
        errs.push(fieldErr.invalid(`${path}.path`, value, `cannot end with '${suffix}'`));
    }
  } else if (p.pathType === 'ImplementationSpecific') {
    if (value && !value.startsWith('/'))
      errs.push(fieldErr.invalid(`${path}.path`, value, 'must be an absolute path'));
  } else {
    errs.push(fieldErr.notSupported(`${path}.pathType`, p.pathType, PATH_TYPES));
  }
  return [...errs, ...validateBackend(isPlainObject(p.backend) ? p.backend : {}, `${path}.backend`)];
}

function validateRules(rules: Obj[]): FieldError[] {
  return rules.flatMap((rule, i) => {
    const at = `spec.rules[${i}]`;
    const errs: FieldError[] = [];
    if (rule.host) {
      if (isIP(rule.host))
        errs.push(fieldErr.invalid(`${at}.host`, rule.host, 'must be a DNS name, not an IP address'));
      errs.push(...validateHost(rule.host, `${at}.host`));
    }
    if (isPlainObject(rule.http)) {
      const paths = list(rule.http.paths);
      if (paths.length === 0) errs.push(fieldErr.required(`${at}.http.paths`));
      paths.forEach((p, j) => errs.push(...validatePath(p, `${at}.http.paths[${j}]`)));
    }
    return errs;
  });
}

function validateSpec(spec: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const rules = list(spec.rules);
  if (rules.length === 0 && !isPlainObject(spec.defaultBackend)) {
    const rendered = Array.isArray(spec.rules)
      ? '[]networking.IngressRule{}'
      : '[]networking.IngressRule(nil)';
    errs.push(fieldErr.invalidRaw('spec', rendered, 'either `defaultBackend` or `rules` must be specified'));
  }
  if (isPlainObject(spec.defaultBackend))
    errs.push(...validateBackend(spec.defaultBackend, 'spec.defaultBackend'));
  errs.push(...validateRules(rules));
  list(spec.tls).forEach((tls, i) => {
    list(tls.hosts).forEach((h, j) => errs.push(...validateHost(String(h), `spec.tls[${i}].hosts[${j}]`)));
    if (tls.secretName) {
      errs.push(
        ...isDns1123Subdomain(tls.secretName).map((m) =>
          fieldErr.invalid(`spec.tls[${i}].secretName`, tls.secretName, m),
        ),
      );
    }
  });
  if (spec.ingressClassName !== undefined) {
    errs.push(
      ...isDns1123Subdomain(spec.ingressClassName).map((m) =>
        fieldErr.invalid('spec.ingressClassName', spec.ingressClassName, m),
      ),
    );
  }
  return errs;
}

export const ingresses: ResourceType = builtin({
  group: 'networking.k8s.io',
  version: 'v1',
  resource: 'ingresses',
  kind: 'Ingress',
  namespaced: true,
  shortNames: ['ing'],
  subresources: ['status'],
  generation: true,
  ...decoding('networking.k8s.io/v1', 'Ingress'),
  defaults(obj, ctx) {
    obj.spec = obj.spec ?? {};
    if (ctx.operation === 'create') obj.status = { loadBalancer: {} };
  },
  validate(obj, ctx) {
    const errs = [
      ...validateObjectMeta(obj.metadata, isDns1123Subdomain, true),
      ...validateSpec(obj.spec ?? {}),
    ];
    const annotation = obj.metadata.annotations?.[CLASS_ANNOTATION] as string | undefined;
    const name = obj.spec?.ingressClassName as string | undefined;
    if (ctx.operation === 'create' && annotation !== undefined && name !== undefined && annotation !== name) {
      errs.push(
        fieldErr.invalid(
          `annotations.${CLASS_ANNOTATION}`,
          annotation,
          'must match `ingressClassName` when both are specified',
        ),
      );
    }
    return errs;
  },
});

const CLASS_ANNOTATION = 'kubernetes.io/ingress.class';
