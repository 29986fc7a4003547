import { fieldErr, notEmulated, type FieldError } from '../errors';
import { isPlainObject, type Obj } from '../types';
import { goPointer, goQuote, goStruct } from './goRender';
import {
  isConfigMapKey,
  isDns1123Label,
  isDns1123Subdomain,
  isQualifiedName,
  isRelaxedEnvVarName,
  isValidId,
  isValidPortName,
  isValidPortNum,
} from './nameRules';
import { validateResourceRequirements } from './resourceRequirements';

/**
 * Container validation of core/v1 (validateContainers, validateInitContainers and what they share),
 * in the server's order, with its texts.
 */

export interface PodScope {
  /** The pod's volumes that validated, by name (a mount of any other one is "Not found"). */
  volumes: Map<string, Obj>;
  gracePeriod?: number;
}

const list = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);

/** ValidatePortNumOrName: a number in range, or an IANA service name. */
export function validatePortNumOrName(port: unknown, path: string): FieldError[] {
  if (typeof port === 'number') return isValidPortNum(port).map((m) => fieldErr.invalid(path, port, m));
  return isValidPortName(String(port ?? '')).map((m) => fieldErr.invalid(path, port ?? '', m));
}

function validatePorts(ports: Obj[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const at = `${path}[${i}]`;
    if (p.name) {
      const msgs = isValidPortName(p.name);
      if (msgs.length) errs.push(...msgs.map((m) => fieldErr.invalid(`${at}.name`, p.name, m)));
      else if (names.has(p.name)) errs.push(fieldErr.duplicate(`${at}.name`, goQuote(p.name)));
      else names.add(p.name);
    }
    if (!p.containerPort) errs.push(fieldErr.required(`${at}.containerPort`));
    else
      errs.push(
        ...isValidPortNum(p.containerPort).map((m) =>
          fieldErr.invalid(`${at}.containerPort`, p.containerPort, m),
        ),
      );
    if (p.hostPort)
      errs.push(...isValidPortNum(p.hostPort).map((m) => fieldErr.invalid(`${at}.hostPort`, p.hostPort, m)));
    if (!p.protocol) errs.push(fieldErr.required(`${at}.protocol`));
    else if (!['SCTP', 'TCP', 'UDP'].includes(p.protocol))
      errs.push(fieldErr.notSupported(`${at}.protocol`, p.protocol, ['SCTP', 'TCP', 'UDP']));
  });
  return errs;
}

/** Fields a container's env may read from the pod (validEnvDownwardAPIFieldPathExpressions). */
const ENV_FIELD_PATHS = [
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.serviceAccountName',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
];
/** What ConvertDownwardAPIFieldLabel accepts at all. */
const DOWNWARD_LABELS = new Set([
  'metadata.annotations',
  'metadata.labels',
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.restartPolicy',
  'spec.serviceAccountName',
  'spec.schedulerName',
  'status.phase',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
]);

/** validateObjectFieldSelector against the allowed expressions (env or downward volumes). */
export function validateFieldRef(ref: Obj, allowed: string[], path: string): FieldError[] {
  if (!ref.apiVersion) return [fieldErr.required(`${path}.apiVersion`)];
  if (!ref.fieldPath) return [fieldErr.required(`${path}.fieldPath`)];
  const fp = String(ref.fieldPath);
  const sub = /^(metadata\.(?:annotations|labels))\['(.*)'\]$/.exec(fp);
  if (ref.apiVersion !== 'v1') {
    return [
      fieldErr.invalid(
        `${path}.fieldPath`,
        fp,
        `error converting fieldPath: unsupported pod version: ${ref.apiVersion}`,
      ),
    ];
  }
  if (!sub && !DOWNWARD_LABELS.has(fp)) {
    return [
      fieldErr.invalid(
        `${path}.fieldPath`,
        fp,
        `error converting fieldPath: field label not supported: ${fp}`,
      ),
    ];
  }
  if (sub) {
    const key = sub[1] === 'metadata.annotations' ? sub[2]!.toLowerCase() : sub[2]!;
    return isQualifiedName(key).map((m) => fieldErr.invalid(path, key, m));
  }
  if (!allowed.includes(fp)) return [fieldErr.notSupported(`${path}.fieldPath`, fp, [...allowed].sort())];
  return [];
}

const RESOURCE_FIELDS = [
  'limits.cpu',
  'limits.ephemeral-storage',
  'limits.memory',
  'requests.cpu',
  'requests.ephemeral-storage',
  'requests.memory',
];

/** validateContainerResourceFieldSelector (without the divisor rules of huge pages). */
export function validateResourceFieldRef(ref: Obj, path: string, needContainer: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (needContainer && !ref.containerName) errs.push(fieldErr.required(`${path}.containerName`));
  if (!ref.resource) errs.push(fieldErr.required(`${path}.resource`));
  else if (!RESOURCE_FIELDS.includes(ref.resource) && !/^(limits|requests)\.hugepages-/.test(ref.resource)) {
    errs.push(fieldErr.notSupported(`${path}.resource`, ref.resource, RESOURCE_FIELDS));
  }
  const divisor = String(ref.divisor ?? '0');
  if (divisor !== '0' && typeof ref.resource === 'string') {
    if (ref.resource.endsWith('.cpu') && !['1m', '1'].includes(divisor)) {
      errs.push(
        fieldErr.invalid(
          `${path}.divisor`,
          divisor,
          "only divisor's values 1m and 1 are supported with the cpu resource",
        ),
      );
    }
    if (/\.(memory|ephemeral-storage)$/.test(ref.resource) && !/^1([kMGTPE]|[KMGTPE]i)?$/.test(divisor)) {
      const what = ref.resource.endsWith('.memory') ? 'memory' : 'local ephemeral storage';
      errs.push(
        fieldErr.invalid(
          `${path}.divisor`,
          divisor,
          `only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the ${what} resource`,
        ),
      );
    }
  }
  return errs;
}

function validateKeySelector(s: Obj, path: string): FieldError[] {
  const errs = isDns1123Subdomain(String(s.name ?? '')).map((m) =>
    fieldErr.invalid(`${path}.name`, s.name ?? '', m),
  );
  if (!s.key) errs.push(fieldErr.required(`${path}.key`));
  else errs.push(...isConfigMapKey(s.key).map((m) => fieldErr.invalid(`${path}.key`, s.key, m)));
  return errs;
}

function validateEnv(env: Obj[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  env.forEach((ev, i) => {
    const at = `${path}[${i}]`;
    if (!ev.name) errs.push(fieldErr.required(`${at}.name`));
    errs.push(
      ...isRelaxedEnvVarName(String(ev.name ?? '')).map((m) => fieldErr.invalid(`${at}.name`, ev.name, m)),
    );
    const from = ev.valueFrom;
    if (!isPlainObject(from)) return;
    const fromPath = `${at}.valueFrom`;
    let sources = 0;
    if (isPlainObject(from.fieldRef)) {
      sources++;
      errs.push(...validateFieldRef(from.fieldRef, ENV_FIELD_PATHS, `${fromPath}.fieldRef`));
    }
    if (isPlainObject(from.resourceFieldRef)) {
      sources++;
      errs.push(...validateResourceFieldRef(from.resourceFieldRef, `${fromPath}.resourceFieldRef`, false));
    }
    if (isPlainObject(from.configMapKeyRef)) {
      sources++;
      errs.push(...validateKeySelector(from.configMapKeyRef, `${fromPath}.configMapKeyRef`));
    }
    if (isPlainObject(from.secretKeyRef)) {
      sources++;
      errs.push(...validateKeySelector(from.secretKeyRef, `${fromPath}.secretKeyRef`));
    }
    if (sources === 0) {
      errs.push(
        fieldErr.invalid(
          fromPath,
          '',
          'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`',
        ),
      );
    } else if (ev.value) {
      errs.push(fieldErr.invalid(fromPath, '', 'may not be specified when `value` is not empty'));
    } else if (sources > 1) {
      errs.push(fieldErr.invalid(fromPath, '', 'may not have more than one field specified at a time'));
    }
  });
  return errs;
}

function validateEnvFrom(envFrom: Obj[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  envFrom.forEach((ev, i) => {
    const at = `${path}[${i}]`;
    if (ev.prefix)
      errs.push(...isRelaxedEnvVarName(ev.prefix).map((m) => fieldErr.invalid(`${at}.prefix`, ev.prefix, m)));
    let sources = 0;
    for (const ref of ['configMapRef', 'secretRef']) {
      if (!isPlainObject(ev[ref])) continue;
      sources++;
      const name = ev[ref].name;
      if (!name) errs.push(fieldErr.required(`${at}.${ref}.name`));
      else errs.push(...isDns1123Subdomain(name).map((m) => fieldErr.invalid(`${at}.${ref}.name`, name, m)));
    }
    if (sources === 0)
      errs.push(fieldErr.invalid(path, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (sources > 1)
      errs.push(fieldErr.invalid(path, '', 'may not have more than one field specified at a time'));
  });
  return errs;
}

/** validateLocalDescendingPath: relative, without a `..` step. */
export function validateLocalDescendingPath(p: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (p.startsWith('/')) errs.push(fieldErr.invalid(path, p, 'must be a relative path'));
  if (p.split('/').includes('..')) errs.push(fieldErr.invalid(path, p, "must not contain '..'"));
  return errs;
}

function validateVolumeMounts(
  mounts: Obj[],
  scope: PodScope,
  privileged: boolean,
  path: string,
): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  mounts.forEach((m, i) => {
    const at = `${path}[${i}]`;
    if (!m.name) errs.push(fieldErr.required(`${at}.name`));
    if (!scope.volumes.has(m.name)) errs.push(fieldErr.notFound(`${at}.name`, m.name ?? ''));
    if (!m.mountPath) errs.push(fieldErr.required(`${at}.mountPath`));
    if (seen.has(m.mountPath)) errs.push(fieldErr.invalid(`${at}.mountPath`, m.mountPath, 'must be unique'));
    seen.add(m.mountPath);
    // Upstream reports these two at the list's path, not the item's.
    if (m.subPath) errs.push(...validateLocalDescendingPath(m.subPath, `${path}.subPath`));
    if (m.subPathExpr) {
      if (m.subPath)
        errs.push(
          fieldErr.invalid(
            `${path}.subPathExpr`,
            m.subPathExpr,
            'subPathExpr and subPath are mutually exclusive',
          ),
        );
      errs.push(...validateLocalDescendingPath(m.subPathExpr, `${path}.subPathExpr`));
    }
    if (m.mountPropagation !== undefined) {
      const modes = ['Bidirectional', 'HostToContainer', 'None'];
      if (!modes.includes(m.mountPropagation)) {
        errs.push(fieldErr.notSupported(`${at}.mountPropagation`, m.mountPropagation, modes));
      } else if (m.mountPropagation === 'Bidirectional' && !privileged) {
        errs.push(
          fieldErr.forbidden(
            `${at}.mountPropagation`,
            'Bidirectional mount propagation is available only to privileged containers',
          ),
        );
      }
    }
    if (m.recursiveReadOnly !== undefined) {
      const at2 = `${at}.recursiveReadOnly`;
      if (m.recursiveReadOnly === 'Enabled' || m.recursiveReadOnly === 'IfPossible') {
        if (!m.readOnly) errs.push(fieldErr.forbidden(at2, 'may only be specified when readOnly is true'));
        if (m.mountPropagation && m.mountPropagation !== 'None')
          errs.push(
            fieldErr.forbidden(at2, 'may only be specified when mountPropagation is None or not specified'),
          );
      } else if (m.recursiveReadOnly !== 'Disabled') {
        errs.push(fieldErr.notSupported(at2, m.recursiveReadOnly, ['Disabled', 'Enabled', 'IfPossible']));
      }
    }
  });
  return errs;
}

const HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'grpc', 'sleep'];

function validateHandler(handler: Obj, scope: PodScope, path: string): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  for (const kind of HANDLERS) {
    const h = handler[kind];
    if (!isPlainObject(h)) continue;
    const at = `${path}.${kind}`;
    if (count > 0) {
      errs.push(fieldErr.forbidden(at, 'may not specify more than 1 handler type'));
      continue;
    }
    count++;
    if (kind === 'exec' && !(h.command ?? []).length) errs.push(fieldErr.required(`${at}.command`));
    if (kind === 'httpGet') {
      if (!h.path) errs.push(fieldErr.required(`${at}.path`));
      errs.push(...validatePortNumOrName(h.port, `${at}.port`));
      if (!['HTTP', 'HTTPS'].includes(h.scheme))
        errs.push(fieldErr.notSupported(`${at}.scheme`, h.scheme ?? '', ['HTTP', 'HTTPS']));
      for (const header of list(h.httpHeaders)) {
        if (!/^[-A-Za-z0-9]+$/.test(String(header.name ?? ''))) {
          errs.push(
            fieldErr.invalid(
              `${at}.httpHeaders`,
              header.name ?? '',
              "a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')",
            ),
          );
        }
      }
    }
    if (kind === 'tcpSocket') errs.push(...validatePortNumOrName(h.port, `${at}.port`));
    if (kind === 'grpc')
      errs.push(
        ...isValidPortNum(Number(h.port ?? 0)).map((m) => fieldErr.invalid(`${at}.port`, h.port ?? 0, m)),
      );
    if (kind === 'sleep') {
      const grace = scope.gracePeriod ?? 30;
      if (!(h.seconds > 0 && h.seconds <= grace)) {
        errs.push(
          fieldErr.invalid(
            `${at}.seconds`,
            h.seconds ?? 0,
            `must be greater than 0 and less than terminationGracePeriodSeconds (${grace})`,
          ),
        );
      }
    }
  }
  if (count === 0) errs.push(fieldErr.required(path, 'must specify a handler type'));
  return errs;
}

function validateProbe(
  probe: unknown,
  scope: PodScope,
  path: string,
  successMustBeOne: boolean,
): FieldError[] {
  if (!isPlainObject(probe)) return [];
  const errs = validateHandler(probe, scope, path);
  for (const f of [
    'initialDelaySeconds',
    'timeoutSeconds',
    'periodSeconds',
    'successThreshold',
    'failureThreshold',
  ]) {
    if ((probe[f] ?? 0) < 0)
      errs.push(fieldErr.invalid(`${path}.${f}`, probe[f], 'must be greater than or equal to 0'));
  }
  if (probe.terminationGracePeriodSeconds !== undefined && probe.terminationGracePeriodSeconds <= 0) {
    errs.push(
      fieldErr.invalid(
        `${path}.terminationGracePeriodSeconds`,
        probe.terminationGracePeriodSeconds,
        'must be greater than 0',
      ),
    );
  }
  if (successMustBeOne && probe.successThreshold !== 1)
    errs.push(fieldErr.invalid(`${path}.successThreshold`, probe.successThreshold, 'must be 1'));
  return errs;
}

function validateLifecycle(lifecycle: unknown, scope: PodScope, path: string): FieldError[] {
  if (!isPlainObject(lifecycle)) return [];
  const errs: FieldError[] = [];
  for (const hook of ['postStart', 'preStop']) {
    if (isPlainObject(lifecycle[hook]))
      errs.push(...validateHandler(lifecycle[hook], scope, `${path}.${hook}`));
  }
  return errs;
}

/** The probes and lifecycle a regular container or a sidecar may have. */
function validateLongRunning(c: Obj, scope: PodScope, path: string): FieldError[] {
  return [
    ...validateLifecycle(c.lifecycle, scope, `${path}.lifecycle`),
    ...validateProbe(c.livenessProbe, scope, `${path}.livenessProbe`, true),
    ...validateProbe(c.readinessProbe, scope, `${path}.readinessProbe`, false),
    ...validateProbe(c.startupProbe, scope, `${path}.startupProbe`, true),
  ];
}

/** seccompProfile of a pod or a container. */
export function validateSeccompProfile(sp: unknown, path: string): FieldError[] {
  if (!isPlainObject(sp)) return [];
  const errs: FieldError[] = [];
  const types = ['Localhost', 'RuntimeDefault', 'Unconfined'];
  if (!sp.type) errs.push(fieldErr.required(`${path}.type`, 'type is required when seccompProfile is set'));
  else if (!types.includes(sp.type)) errs.push(fieldErr.notSupported(`${path}.type`, sp.type, types));
  if (sp.type === 'Localhost') {
    if (sp.localhostProfile === undefined) {
      errs.push(fieldErr.required(`${path}.localhostProfile`, 'must be set when seccomp type is Localhost'));
    } else {
      errs.push(...validateLocalDescendingPath(sp.localhostProfile, `${path}.localhostProfile`));
    }
  } else if (sp.localhostProfile !== undefined) {
    const rendered = goStruct('core.SeccompProfile', [
      ['Type', goQuote(sp.type ?? '')],
      ['LocalhostProfile', goPointer('string', sp.localhostProfile)],
    ]);
    errs.push(
      fieldErr.invalidRaw(
        `${path}.localhostProfile`,
        rendered,
        'can only be set when seccomp type is Localhost',
      ),
    );
  }
  return errs;
}

/** appArmorProfile of a pod or a container. */
export function validateAppArmorProfile(p: unknown, path: string): FieldError[] {
  if (!isPlainObject(p)) return [];
  const local = p.localhostProfile;
  switch (p.type) {
    case 'Localhost':
      if (local === undefined || String(local).trim() === '') {
        if (local !== undefined && String(local).trim() !== local)
          return [fieldErr.invalid(`${path}.localhostProfile`, local, 'must not be padded with whitespace')];
        return [fieldErr.required(`${path}.localhostProfile`, 'must be set when AppArmor type is Localhost')];
      }
      return String(local).trim() !== local
        ? [fieldErr.invalid(`${path}.localhostProfile`, local, 'must not be padded with whitespace')]
        : [];
    case 'RuntimeDefault':
    case 'Unconfined':
      return local === undefined
        ? []
        : [
            fieldErr.invalid(
              `${path}.localhostProfile`,
              local,
              'can only be set when AppArmor type is Localhost',
            ),
          ];
    case undefined:
    case '':
      return [fieldErr.required(`${path}.type`, 'type is required when appArmorProfile is set')];
    default:
      return [fieldErr.notSupported(`${path}.type`, p.type, ['Localhost', 'RuntimeDefault', 'Unconfined'])];
  }
}

/** core.SecurityContext by value, as the allowPrivilegeEscalation error prints it (19 #19). */
function renderSecurityContext(sc: Obj): string {
  return goStruct('core.SecurityContext', [
    ['Capabilities', goPointer('core.Capabilities', sc.capabilities)],
    ['Privileged', goPointer('bool', sc.privileged)],
    ['SELinuxOptions', goPointer('core.SELinuxOptions', sc.seLinuxOptions)],
    ['WindowsOptions', goPointer('core.WindowsSecurityContextOptions', sc.windowsOptions)],
    ['RunAsUser', goPointer('int64', sc.runAsUser)],
    ['RunAsGroup', goPointer('int64', sc.runAsGroup)],
    ['RunAsNonRoot', goPointer('bool', sc.runAsNonRoot)],
    ['ReadOnlyRootFilesystem', goPointer('bool', sc.readOnlyRootFilesystem)],
    ['AllowPrivilegeEscalation', goPointer('bool', sc.allowPrivilegeEscalation)],
    ['ProcMount', goPointer('core.ProcMountType', sc.procMount)],
    ['SeccompProfile', goPointer('core.SeccompProfile', sc.seccompProfile)],
    ['AppArmorProfile', goPointer('core.AppArmorProfile', sc.appArmorProfile)],
  ]);
}

/**
 * ValidateSecurityContext of a container. The recorded server allows privileged containers
 * (`--allow-privileged`: 19 #19 reports only the escalation conflict).
 */
function validateSecurityContext(sc: unknown, path: string): FieldError[] {
  if (!isPlainObject(sc)) return [];
  const errs: FieldError[] = [];
  for (const f of ['runAsUser', 'runAsGroup']) {
    if (sc[f] !== undefined)
      errs.push(...isValidId(sc[f]).map((m) => fieldErr.invalid(`${path}.${f}`, sc[f], m)));
  }
  if (sc.procMount !== undefined && !['Default', 'Unmasked'].includes(sc.procMount)) {
    errs.push(fieldErr.notSupported(`${path}.procMount`, sc.procMount, ['Default', 'Unmasked']));
  }
  errs.push(...validateSeccompProfile(sc.seccompProfile, `${path}.seccompProfile`));
  if (sc.allowPrivilegeEscalation === false) {
    if (sc.privileged === true) {
      errs.push(
        fieldErr.invalidRaw(
          path,
          renderSecurityContext(sc),
          'cannot set `allowPrivilegeEscalation` to false and `privileged` to true',
        ),
      );
    }
    for (const cap of (sc.capabilities?.add ?? []) as string[]) {
      if (cap === 'CAP_SYS_ADMIN') {
        errs.push(
          fieldErr.invalidRaw(
            path,
            renderSecurityContext(sc),
            'cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN',
          ),
        );
      }
    }
  }
  errs.push(...validateAppArmorProfile(sc.appArmorProfile, `${path}.appArmorProfile`));
  return errs;
}

function validateContainerCommon(c: Obj, scope: PodScope, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!c.name) errs.push(fieldErr.required(`${path}.name`));
  else errs.push(...isDns1123Label(c.name).map((m) => fieldErr.invalid(`${path}.name`, c.name, m)));
  if (!c.image) errs.push(fieldErr.required(`${path}.image`));
  if (!c.terminationMessagePolicy) errs.push(fieldErr.required(`${path}.terminationMessagePolicy`));
  else if (!['File', 'FallbackToLogsOnError'].includes(c.terminationMessagePolicy)) {
    errs.push(
      fieldErr.notSupported(`${path}.terminationMessagePolicy`, c.terminationMessagePolicy, [
        'File',
        'FallbackToLogsOnError',
      ]),
    );
  }
  errs.push(...validatePorts(list(c.ports), `${path}.ports`));
  errs.push(...validateEnv(list(c.env), `${path}.env`));
  errs.push(...validateEnvFrom(list(c.envFrom), `${path}.envFrom`));
  errs.push(
    ...validateVolumeMounts(
      list(c.volumeMounts),
      scope,
      c.securityContext?.privileged === true,
      `${path}.volumeMounts`,
    ),
  );
  const policies = ['Always', 'IfNotPresent', 'Never'];
  if (!c.imagePullPolicy) errs.push(fieldErr.required(`${path}.imagePullPolicy`));
  else if (!policies.includes(c.imagePullPolicy))
    errs.push(fieldErr.notSupported(`${path}.imagePullPolicy`, c.imagePullPolicy, policies));
  errs.push(...validateResourceRequirements(c.resources, `${path}.resources`));
  errs.push(...validateSecurityContext(c.securityContext, `${path}.securityContext`));
  return errs;
}

/** AccumulateUniqueHostPorts: one protocol/hostIP/hostPort per pod. */
function uniqueHostPorts(containers: Obj[], seen: Set<string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  containers.forEach((c, ci) =>
    list(c.ports).forEach((p, pi) => {
      if (!p.hostPort) return;
      const key = `${p.protocol}/${p.hostIP ?? ''}/${p.hostPort}`;
      if (seen.has(key)) errs.push(fieldErr.duplicate(`${path}[${ci}].ports[${pi}].hostPort`, goQuote(key)));
      else seen.add(key);
    }),
  );
  return errs;
}

export function validateContainers(containers: unknown, scope: PodScope, path: string): FieldError[] {
  const all = list(containers);
  if (all.length === 0) return [fieldErr.required(path)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  all.forEach((c, i) => {
    const at = `${path}[${i}]`;
    errs.push(...validateContainerCommon(c, scope, at));
    if (names.has(c.name)) errs.push(fieldErr.duplicate(`${at}.name`, goQuote(c.name ?? '')));
    else names.add(c.name);
    errs.push(...validateLongRunning(c, scope, at));
    if (c.restartPolicy !== undefined)
      errs.push(fieldErr.forbidden(`${at}.restartPolicy`, 'may not be set for non-init containers'));
  });
  errs.push(...uniqueHostPorts(all, new Set(), path));
  return errs;
}

const NOT_A_SIDECAR = 'may not be set for init containers without restartPolicy=Always';

export function validateInitContainers(
  init: unknown,
  containers: unknown,
  scope: PodScope,
  path: string,
): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set(list(containers).map((c) => c.name as string));
  list(init).forEach((c, i) => {
    const at = `${path}[${i}]`;
    errs.push(...validateContainerCommon(c, scope, at));
    if (c.restartPolicy !== undefined && c.restartPolicy !== 'Always') {
      errs.push(fieldErr.notSupported(`${at}.restartPolicy`, c.restartPolicy, ['Always']));
    }
    if (names.has(c.name)) errs.push(fieldErr.duplicate(`${at}.name`, goQuote(c.name ?? '')));
    else if (c.name) names.add(c.name);
    errs.push(...uniqueHostPorts([c], new Set(), path));
    if (c.restartPolicy === 'Always') {
      errs.push(...validateLongRunning(c, scope, at));
    } else {
      for (const f of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe']) {
        if (c[f] !== undefined) errs.push(fieldErr.forbidden(`${at}.${f}`, NOT_A_SIDECAR));
      }
    }
    // The server prints the []core.ContainerResizePolicy value here.
    if (list(c.resizePolicy).length) throw notEmulated(`${at}.resizePolicy on an init container`);
  });
  return errs;
}
