import { fieldErr, notEmulated, type FieldError } from '../errors';
import { isPlainObject } from '../types';
import { isQualifiedName } from './nameRules';
import { compareQuantities, formatQuantity, isInteger, parseQuantity, type Quantity } from './quantity';

/**
 * ValidateContainerResourceRequirements: resource names, non-negative quantities, requests not
 * above limits (equal for resources that cannot be overcommitted). Quantities arrive canonical
 * (decoding.ts); maps are walked in sorted order (Go's is random: 19 #30 is marked unordered).
 */

const STANDARD_CONTAINER = new Set(['cpu', 'memory', 'ephemeral-storage']);
const STANDARD = new Set([
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
  'services',
  'replicationcontrollers',
  'resourcequotas',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'storage',
  'requests.storage',
  'services.nodeports',
  'services.loadbalancers',
]);

const isHugePages = (name: string) => name.startsWith('hugepages-');
const isNative = (name: string) => !name.includes('/') || name.includes('kubernetes.io/');
const isExtended = (name: string) =>
  !isNative(name) && !name.startsWith('requests.') && isQualifiedName(`requests.${name}`).length === 0;
const overcommitAllowed = (name: string) => isNative(name) && !isHugePages(name);

/** validateResourceName: a qualified name, and without a domain one of the standard ones. */
function validateResourceName(name: string, path: string): FieldError[] {
  const qualified = isQualifiedName(name).map((m) => fieldErr.invalid(path, name, m));
  if (qualified.length) return qualified;
  const standard = STANDARD.has(name) || isHugePages(name) || name.startsWith('requests.hugepages-');
  // The name is a core.ResourceName, a Stringer: printed without quotes (19 #34).
  return name.includes('/') || standard
    ? []
    : [fieldErr.invalidRaw(path, name, 'must be a standard resource type or fully qualified')];
}

function validateContainerResourceName(name: string, path: string): FieldError[] {
  const errs = validateResourceName(name, path);
  if (!name.includes('/')) {
    if (!STANDARD_CONTAINER.has(name) && !isHugePages(name))
      errs.push(fieldErr.invalidRaw(path, name, 'must be a standard resource for containers'));
  } else if (!isNative(name) && !isExtended(name)) {
    errs.push(fieldErr.invalidRaw(path, name, "doesn't follow extended resource name standard"));
  }
  return errs;
}

function validateQuantity(name: string, q: Quantity, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (q.nanos < 0n)
    errs.push(fieldErr.invalid(path, formatQuantity(q), 'must be greater than or equal to 0'));
  if (isExtended(name) && !isInteger(q)) {
    // The server prints the whole resource.Quantity struct (%#v of its internals) here.
    throw notEmulated(`the "must be an integer" error of ${path}`);
  }
  return errs;
}

function quantities(list: unknown): [string, Quantity][] {
  if (!isPlainObject(list)) return [];
  return Object.keys(list)
    .sort()
    .map((k) => [k, parseQuantity(String(list[k]))]);
}

export function validateResourceRequirements(resources: unknown, path: string): FieldError[] {
  if (!isPlainObject(resources)) return [];
  const errs: FieldError[] = [];
  const limits = new Map(quantities(resources.limits));
  for (const [name, q] of limits) {
    const at = `${path}.limits[${name}]`;
    errs.push(...validateContainerResourceName(name, at), ...validateQuantity(name, q, at));
  }
  for (const [name, q] of quantities(resources.requests)) {
    const at = `${path}.requests[${name}]`;
    errs.push(...validateContainerResourceName(name, at), ...validateQuantity(name, q, at));
    const limit = limits.get(name);
    if (limit) {
      const cmp = compareQuantities(q, limit);
      if (cmp !== 0 && !overcommitAllowed(name)) {
        errs.push(
          fieldErr.invalid(
            `${path}.requests`,
            formatQuantity(q),
            `must be equal to ${name} limit of ${formatQuantity(limit)}`,
          ),
        );
      } else if (cmp > 0) {
        errs.push(
          fieldErr.invalid(
            `${path}.requests`,
            formatQuantity(q),
            `must be less than or equal to ${name} limit of ${formatQuantity(limit)}`,
          ),
        );
      }
    } else if (!overcommitAllowed(name)) {
      errs.push(fieldErr.required(`${path}.limits`, 'Limit must be set for non overcommitable resources'));
    }
  }
  const names = [
    ...limits.keys(),
    ...Object.keys(isPlainObject(resources.requests) ? resources.requests : {}),
  ];
  if (names.some(isHugePages) && !names.some((n) => n === 'cpu' || n === 'memory')) {
    errs.push(fieldErr.forbidden(path, 'HugePages require cpu or memory'));
  }
  return errs;
}
