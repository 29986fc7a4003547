import { fieldErr, type FieldError } from '../errors';
import { isPlainObject, type Obj } from '../types';
import {
  validateAppArmorProfile,
  validateContainers,
  validateInitContainers,
  validateSeccompProfile,
} from './containerValidation';
import { goQuote } from './goRender';
import {
  setOperatorValueErrors,
  validateAnnotations,
  validateLabelSelector,
  validateLabels,
} from './metaValidation';
import {
  isDns1123Label,
  isDns1123Subdomain,
  isQualifiedName,
  isValidId,
  isValidLabelValue,
} from './nameRules';
import { validateVolumes } from './volumeValidation';

/** ValidatePodSpec and ValidatePodTemplateSpec of core/v1, in the server's order. */

const list = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);

function labelNameErrors(key: string, path: string): FieldError[] {
  return isQualifiedName(key).map((m) => fieldErr.invalid(path, key, m));
}

/**
 * With hostNetwork a port's hostPort must be its containerPort. A Pod has it defaulted; a template
 * leaves it unset, which is fine.
 */
function validateHostNetworkPorts(spec: Obj, path: string): FieldError[] {
  if (spec.hostNetwork !== true) return [];
  const errs: FieldError[] = [];
  list(spec.containers).forEach((c, i) =>
    list(c.ports).forEach((p, j) => {
      if (p.hostPort && p.hostPort !== p.containerPort) {
        errs.push(
          fieldErr.invalid(
            `${path}.containers[${i}].ports[${j}].hostPort`,
            p.hostPort,
            'must match `containerPort` when `hostNetwork` is true',
          ),
        );
      }
    }),
  );
  return errs;
}

function validatePodSecurityContext(sc: unknown, path: string): FieldError[] {
  if (!isPlainObject(sc)) return [];
  const errs: FieldError[] = [];
  for (const f of ['fsGroup', 'runAsUser', 'runAsGroup']) {
    if (sc[f] !== undefined)
      errs.push(...isValidId(sc[f]).map((m) => fieldErr.invalid(`${path}.${f}`, sc[f], m)));
  }
  list(sc.supplementalGroups).forEach((g, i) =>
    errs.push(...isValidId(Number(g)).map((m) => fieldErr.invalid(`${path}.supplementalGroups[${i}]`, g, m))),
  );
  if (
    sc.fsGroupChangePolicy !== undefined &&
    !['OnRootMismatch', 'Always'].includes(sc.fsGroupChangePolicy)
  ) {
    errs.push(
      fieldErr.notSupported(`${path}.fsGroupChangePolicy`, sc.fsGroupChangePolicy, [
        'OnRootMismatch',
        'Always',
      ]),
    );
  }
  errs.push(...validateSeccompProfile(sc.seccompProfile, `${path}.seccompProfile`));
  errs.push(...validateAppArmorProfile(sc.appArmorProfile, `${path}.appArmorProfile`));
  return errs;
}

function validateNodeSelectorRequirement(r: Obj, path: string): FieldError[] {
  const values = list(r.values);
  const errs = setOperatorValueErrors(r.operator, values, path) ?? [];
  switch (r.operator) {
    case 'In':
    case 'NotIn':
    case 'Exists':
    case 'DoesNotExist':
      break;
    case 'Gt':
    case 'Lt':
      if (values.length !== 1)
        errs.push(
          fieldErr.required(
            `${path}.values`,
            "must be specified single value when `operator` is 'Lt' or 'Gt'",
          ),
        );
      break;
    default:
      errs.push(fieldErr.invalid(`${path}.operator`, r.operator ?? '', 'not a valid selector operator'));
  }
  return [...errs, ...labelNameErrors(r.key ?? '', `${path}.key`)];
}

function validateNodeSelectorTerm(term: Obj, path: string): FieldError[] {
  return list(term.matchExpressions).flatMap((r, j) =>
    validateNodeSelectorRequirement(r, `${path}.matchExpressions[${j}]`),
  );
}

function validatePodAffinityTerm(term: Obj, path: string): FieldError[] {
  const errs = [
    ...validateLabelSelector(term.labelSelector, `${path}.labelSelector`),
    ...validateLabelSelector(term.namespaceSelector, `${path}.namespaceSelector`),
  ];
  for (const ns of list(term.namespaces) as unknown as string[]) {
    errs.push(...isDns1123Label(ns).map((m) => fieldErr.invalid(`${path}.namespace`, ns, m)));
  }
  if (!term.topologyKey) errs.push(fieldErr.required(`${path}.topologyKey`, 'can not be empty'));
  return [...errs, ...labelNameErrors(term.topologyKey ?? '', `${path}.topologyKey`)];
}

function validateWeighted(
  terms: Obj[],
  path: string,
  inner: (t: Obj, at: string) => FieldError[],
  key: string,
): FieldError[] {
  return terms.flatMap((t, i) => {
    const at = `${path}[${i}]`;
    const errs =
      t.weight >= 1 && t.weight <= 100
        ? []
        : [fieldErr.invalid(`${at}.weight`, t.weight ?? 0, 'must be in the range 1-100')];
    return [...errs, ...inner(isPlainObject(t[key]) ? t[key] : {}, `${at}.${key}`)];
  });
}

function validateAffinity(affinity: unknown, path: string): FieldError[] {
  if (!isPlainObject(affinity)) return [];
  const errs: FieldError[] = [];
  const node = affinity.nodeAffinity;
  if (isPlainObject(node)) {
    const at = `${path}.nodeAffinity`;
    const required = node.requiredDuringSchedulingIgnoredDuringExecution;
    if (isPlainObject(required)) {
      const rAt = `${at}.requiredDuringSchedulingIgnoredDuringExecution`;
      const terms = list(required.nodeSelectorTerms);
      if (terms.length === 0)
        errs.push(fieldErr.required(`${rAt}.nodeSelectorTerms`, 'must have at least one node selector term'));
      terms.forEach((t, i) => errs.push(...validateNodeSelectorTerm(t, `${rAt}.nodeSelectorTerms[${i}]`)));
    }
    errs.push(
      ...validateWeighted(
        list(node.preferredDuringSchedulingIgnoredDuringExecution),
        `${at}.preferredDuringSchedulingIgnoredDuringExecution`,
        validateNodeSelectorTerm,
        'preference',
      ),
    );
  }
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const a = affinity[kind];
    if (!isPlainObject(a)) continue;
    const at = `${path}.${kind}`;
    list(a.requiredDuringSchedulingIgnoredDuringExecution).forEach((t, i) =>
      errs.push(...validatePodAffinityTerm(t, `${at}.requiredDuringSchedulingIgnoredDuringExecution[${i}]`)),
    );
    errs.push(
      ...validateWeighted(
        list(a.preferredDuringSchedulingIgnoredDuringExecution),
        `${at}.preferredDuringSchedulingIgnoredDuringExecution`,
        validatePodAffinityTerm,
        'podAffinityTerm',
      ),
    );
  }
  return errs;
}

function validateTopologySpread(constraints: unknown, path: string): FieldError[] {
  const all = list(constraints);
  return all.flatMap((c, i) => {
    const at = `${path}[${i}]`;
    const errs: FieldError[] = [];
    if (!(c.maxSkew > 0))
      errs.push(fieldErr.invalid(`${at}.maxSkew`, c.maxSkew ?? 0, 'must be greater than zero'));
    if (!c.topologyKey) errs.push(fieldErr.required(`${at}.topologyKey`, 'can not be empty'));
    else errs.push(...labelNameErrors(c.topologyKey, `${at}.topologyKey`));
    if (!['DoNotSchedule', 'ScheduleAnyway'].includes(c.whenUnsatisfiable)) {
      errs.push(
        fieldErr.notSupported(`${at}.whenUnsatisfiable`, c.whenUnsatisfiable ?? '', [
          'DoNotSchedule',
          'ScheduleAnyway',
        ]),
      );
    }
    if (
      all
        .slice(i + 1)
        .some((o) => o.topologyKey === c.topologyKey && o.whenUnsatisfiable === c.whenUnsatisfiable)
    ) {
      errs.push(
        fieldErr.duplicate(
          `${at}.{topologyKey, whenUnsatisfiable}`,
          goQuote(`{${c.topologyKey}, ${c.whenUnsatisfiable}}`),
        ),
      );
    }
    if (c.minDomains !== undefined) {
      if (!(c.minDomains > 0))
        errs.push(fieldErr.invalid(`${at}.minDomains`, c.minDomains, 'must be greater than 0'));
      else if (c.whenUnsatisfiable !== 'DoNotSchedule') {
        errs.push(
          fieldErr.invalid(
            `${at}.minDomains`,
            c.minDomains,
            `can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ${c.whenUnsatisfiable}`,
          ),
        );
      }
    }
    for (const policy of ['nodeAffinityPolicy', 'nodeTaintsPolicy']) {
      if (c[policy] !== undefined && !['Honor', 'Ignore'].includes(c[policy])) {
        errs.push(fieldErr.notSupported(`${at}.${policy}`, c[policy], ['Honor', 'Ignore']));
      }
    }
    return [...errs, ...validateLabelSelector(c.labelSelector, `${at}.labelSelector`)];
  });
}

function validateTolerations(tolerations: unknown, path: string): FieldError[] {
  return list(tolerations).flatMap((t, i) => {
    const at = `${path}[${i}]`;
    const errs: FieldError[] = [];
    if (t.key) errs.push(...labelNameErrors(t.key, `${at}.key`));
    if (!t.key && t.operator !== 'Exists') {
      errs.push(
        fieldErr.invalid(
          `${at}.operator`,
          t.operator ?? '',
          'operator must be Exists when `key` is empty, which means "match all values and all keys"',
        ),
      );
    }
    if (t.tolerationSeconds !== undefined && t.effect !== 'NoExecute') {
      errs.push(
        fieldErr.invalid(
          `${at}.effect`,
          t.effect ?? '',
          "effect must be 'NoExecute' when `tolerationSeconds` is set",
        ),
      );
    }
    switch (t.operator ?? '') {
      case 'Equal':
      case '':
        errs.push(
          ...isValidLabelValue(t.value ?? '').map((m) =>
            fieldErr.invalid(`${at}.operator`, t.value ?? '', m),
          ),
        );
        break;
      case 'Exists':
        if (t.value)
          errs.push(
            fieldErr.invalid(`${at}.operator`, t.value, "value must be empty when `operator` is 'Exists'"),
          );
        break;
      default:
        errs.push(fieldErr.notSupported(`${at}.operator`, t.operator, ['Equal', 'Exists']));
    }
    if (t.effect && !['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(t.effect)) {
      errs.push(
        fieldErr.notSupported(`${at}.effect`, t.effect, ['NoSchedule', 'PreferNoSchedule', 'NoExecute']),
      );
    }
    return errs;
  });
}

function validateDnsConfig(spec: Obj, path: string): FieldError[] {
  const config = spec.dnsConfig;
  if (spec.dnsPolicy === 'None' && !isPlainObject(config)) {
    return [fieldErr.required(`${path}.dnsConfig`, 'must provide `dnsConfig` when `dnsPolicy` is None')];
  }
  if (!isPlainObject(config)) return [];
  const errs: FieldError[] = [];
  const servers = list(config.nameservers) as unknown as string[];
  if (spec.dnsPolicy === 'None' && servers.length === 0) {
    errs.push(
      fieldErr.required(
        `${path}.dnsConfig.nameservers`,
        'must provide at least one DNS nameserver when `dnsPolicy` is None',
      ),
    );
  }
  if (servers.length > 3) {
    errs.push(
      fieldErr.invalidRaw(
        `${path}.dnsConfig.nameservers`,
        `[]string{${servers.map(goQuote).join(', ')}}`,
        'must not have more than 3 nameservers',
      ),
    );
  }
  list(config.options).forEach((o, i) => {
    if (!o.name)
      errs.push(fieldErr.required(`${path}.dnsConfig.options[${i}]`, 'Option.Name must not be empty'));
  });
  return errs;
}

const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];

/** ValidatePodSpec (of a Pod or of a template). */
export function validatePodSpec(spec: Obj, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (spec.terminationGracePeriodSeconds === undefined)
    errs.push(fieldErr.required(`${path}.terminationGracePeriodSeconds`));
  const { byName, errs: volumeErrs } = validateVolumes(spec.volumes, `${path}.volumes`);
  errs.push(...volumeErrs);
  const scope = { volumes: byName, gracePeriod: spec.terminationGracePeriodSeconds };
  errs.push(...validateContainers(spec.containers, scope, `${path}.containers`));
  errs.push(...validateInitContainers(spec.initContainers, spec.containers, scope, `${path}.initContainers`));
  errs.push(...validateHostNetworkPorts(spec, path));
  const rp = spec.restartPolicy ?? '';
  if (!rp) errs.push(fieldErr.required(`${path}.restartPolicy`));
  else if (!['Always', 'OnFailure', 'Never'].includes(rp))
    errs.push(fieldErr.notSupported(`${path}.restartPolicy`, rp, ['Always', 'OnFailure', 'Never']));
  if (!spec.dnsPolicy) errs.push(fieldErr.required(`${path}.dnsPolicy`));
  else if (!DNS_POLICIES.includes(spec.dnsPolicy))
    errs.push(fieldErr.notSupported(`${path}.dnsPolicy`, spec.dnsPolicy, DNS_POLICIES));
  errs.push(...validateLabels(spec.nodeSelector, `${path}.nodeSelector`));
  errs.push(...validatePodSecurityContext(spec.securityContext, `${path}.securityContext`));
  list(spec.imagePullSecrets).forEach((s, i) => {
    if (Object.keys(s).some((k) => k !== 'name'))
      errs.push(
        fieldErr.invalidRaw(
          `${path}.imagePullSecrets[${i}]`,
          `core.LocalObjectReference{Name:${goQuote(s.name ?? '')}}`,
          'only name may be set',
        ),
      );
  });
  errs.push(...validateAffinity(spec.affinity, `${path}.affinity`));
  errs.push(...validateDnsConfig(spec, path));
  list(spec.readinessGates).forEach((g, i) =>
    errs.push(...labelNameErrors(g.conditionType ?? '', `${path}.readinessGates[${i}].conditionType`)),
  );
  errs.push(...validateTopologySpread(spec.topologySpreadConstraints, `${path}.topologySpreadConstraints`));
  if (spec.serviceAccountName) {
    errs.push(
      ...isDns1123Subdomain(spec.serviceAccountName).map((m) =>
        fieldErr.invalid(`${path}.serviceAccountName`, spec.serviceAccountName, m),
      ),
    );
  }
  if (spec.nodeName)
    errs.push(
      ...isDns1123Subdomain(spec.nodeName).map((m) => fieldErr.invalid(`${path}.nodeName`, spec.nodeName, m)),
    );
  if (
    spec.activeDeadlineSeconds !== undefined &&
    !(spec.activeDeadlineSeconds >= 1 && spec.activeDeadlineSeconds <= 2147483647)
  ) {
    errs.push(
      fieldErr.invalid(
        `${path}.activeDeadlineSeconds`,
        spec.activeDeadlineSeconds,
        'must be between 1 and 2147483647, inclusive',
      ),
    );
  }
  for (const f of ['hostname', 'subdomain']) {
    if (spec[f])
      errs.push(...isDns1123Label(spec[f]).map((m) => fieldErr.invalid(`${path}.${f}`, spec[f], m)));
  }
  errs.push(...validateTolerations(spec.tolerations, `${path}.tolerations`));
  for (const f of ['priorityClassName', 'runtimeClassName']) {
    if (spec[f])
      errs.push(...isDns1123Subdomain(spec[f]).map((m) => fieldErr.invalid(`${path}.${f}`, spec[f], m)));
  }
  if (
    spec.preemptionPolicy !== undefined &&
    !['Never', 'PreemptLowerPriority'].includes(spec.preemptionPolicy)
  ) {
    errs.push(
      fieldErr.notSupported(`${path}.preemptionPolicy`, spec.preemptionPolicy, [
        'Never',
        'PreemptLowerPriority',
      ]),
    );
  }
  if (isPlainObject(spec.os) && !['linux', 'windows'].includes(spec.os.name)) {
    errs.push(fieldErr.notSupported(`${path}.os.name`, spec.os.name ?? '', ['linux', 'windows']));
  }
  return errs;
}

/** ValidatePodTemplateSpec: the template's labels and annotations, then its spec. */
export function validatePodTemplateSpec(template: unknown, path: string): FieldError[] {
  const t = isPlainObject(template) ? template : {};
  const meta = isPlainObject(t.metadata) ? t.metadata : {};
  const spec = isPlainObject(t.spec) ? t.spec : {};
  const errs = [
    ...validateLabels(meta.labels, `${path}.labels`),
    ...validateAnnotations(meta.annotations, `${path}.annotations`),
    ...validatePodSpec(spec, `${path}.spec`),
  ];
  if (list(spec.ephemeralContainers).length) {
    errs.push(
      fieldErr.forbidden(
        `${path}.spec.ephemeralContainers`,
        'ephemeral containers not allowed in pod template',
      ),
    );
  }
  return errs;
}
