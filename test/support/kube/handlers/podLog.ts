import type { ServerResponse } from 'node:http';
import { LogReader, type ContainerLog, type LogReadOptions, type LogRecord } from '../containerLogs';
import type { KubeEmulator } from '../emulator';
import { ApiError, badRequest, fieldErr, invalid, notEmulated, notFound, type FieldError } from '../errors';
import { kubeletAnswered, kubeletUnreachable } from '../podLogFaults';
import { STAND_IN_NODE } from '../standInNode';
import type { Obj } from '../types';
import type { RequestContext } from './context';

/**
 * GET pods/{name}/log as kube-apiserver v1.32 and the kubelet serve it. The recorded transcripts
 * hold none of it (they had no kubelet, README "Not recorded"): every step and text is upstream's.
 * The API server (registry/core/pod/rest/log.go) decodes the PodLogOptions from the query (a
 * number that does not parse: 400 with strconv's text), validates them (422 `PodLogOptions "NAME"
 * is invalid`), reads the pod (404), picks the container (strategy.go validateContainer: 400
 * `a container name must be specified for pod NAME, choose one of: [a b]`, init containers
 * first), answers 204 without a body for a pod no scheduler has placed (LogLocation's empty
 * location), reads the Node (404) for the kubelet's address (kubeadm's
 * `--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname`) and port, and proxies to it.
 * Only the stand-in kubelet's Node answers; any other node's kubelet, or one a test made
 * unreachable (podLogFaults.ts), is a 500 without reason. The kubelet (kubelet_pods.go
 * validateContainerLogStatus) picks the container instance from the pod's status or refuses with
 * a 400 (`… is waiting to start: ContainerCreating`, `previous terminated container "x" in pod
 * "y" not found`), then reads its log (containerLogs.ts) as `text/plain`. `follow` streams until
 * the instance ends; `sinceTime` and `stream` are not emulated (501).
 */
export function servePodLog(emu: KubeEmulator, ctx: RequestContext, res: ServerResponse): void {
  const name = ctx.info.name!;
  const options = decodeOptions(ctx.query);
  const errors = validateOptions(options);
  if (errors.length) throw invalid('PodLogOptions', '', name, errors);
  const pod = emu.store.get('/pods', ctx.info.namespace, name);
  if (!pod) throw notFound('pods', '', name);
  const container = chooseContainer(options.container, pod);
  if (!pod.spec.nodeName) {
    res.writeHead(204);
    res.end();
    return;
  }
  const node = emu.store.get('/nodes', undefined, pod.spec.nodeName);
  if (!node) throw notFound('nodes', '', pod.spec.nodeName);
  const kubelet = kubeletLocation(node, pod, container, options);
  const fault = node.metadata.name === STAND_IN_NODE.name ? emu.podLogFaults.take() : null;
  if (node.metadata.name !== STAND_IN_NODE.name || fault?.kind === 'unreachable') {
    throw kubeletUnreachable(kubelet, fault?.kind === 'unreachable' ? fault.dialError : undefined);
  }
  if (fault?.kind === 'answers') throw kubeletAnswered(fault.status, fault.body, name);
  // Nothing is written: the request stays open until the caller gives up or the emulator stops.
  if (fault?.kind === 'hangs') return;
  const containerID = instanceToRead(pod, container, options.previous);
  streamLog(emu.containerLogs.find(pod.metadata.uid, containerID), options, emu.now(), res);
}

interface PodLogOptions extends LogReadOptions {
  container?: string;
  previous: boolean;
}

/** Go's conversion of a query parameter to a bool: anything but `0` and `false` is true. */
function queryBool(query: URLSearchParams, key: string): boolean {
  const value = query.get(key);
  return value !== null && value !== '0' && value.toLowerCase() !== 'false';
}

/** strconv.ParseInt(value, 10, 64), with its error texts. */
function queryInt(query: URLSearchParams, key: string): number | undefined {
  const value = query.get(key);
  if (value === null) return undefined;
  if (!/^[+-]?\d+$/.test(value))
    throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`);
  const n = BigInt(value);
  if (n > 9223372036854775807n || n < -9223372036854775808n) {
    throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(value)}: value out of range`);
  }
  return Number(n);
}

function decodeOptions(query: URLSearchParams): PodLogOptions {
  for (const unsupported of ['sinceTime', 'stream']) {
    if (query.has(unsupported)) throw notEmulated(`pods/log with ${unsupported}`);
  }
  return {
    container: query.get('container') || undefined,
    follow: queryBool(query, 'follow'),
    previous: queryBool(query, 'previous'),
    timestamps: queryBool(query, 'timestamps'),
    tailLines: queryInt(query, 'tailLines'),
    limitBytes: queryInt(query, 'limitBytes'),
    sinceSeconds: queryInt(query, 'sinceSeconds'),
  };
}

/** ValidatePodLogOptions (pkg/apis/core/validation). */
function validateOptions(o: PodLogOptions): FieldError[] {
  const errors: FieldError[] = [];
  if (o.tailLines !== undefined && o.tailLines < 0) {
    errors.push(fieldErr.invalid('tailLines', o.tailLines, 'must be greater than or equal to 0'));
  }
  if (o.limitBytes !== undefined && o.limitBytes < 1) {
    errors.push(fieldErr.invalid('limitBytes', o.limitBytes, 'must be greater than 0'));
  }
  if (o.sinceSeconds !== undefined && o.sinceSeconds < 1) {
    errors.push(fieldErr.invalid('sinceSeconds', o.sinceSeconds, 'must be greater than 0'));
  }
  return errors;
}

/** Every container of the pod, as podutil.VisitContainers lists them: init, regular, ephemeral. */
function containerNames(pod: Obj): string[] {
  return ['initContainers', 'containers', 'ephemeralContainers'].flatMap((key) =>
    ((pod.spec[key] ?? []) as Obj[]).map((c) => c.name as string),
  );
}

/** The pod strategy's validateContainer. */
function chooseContainer(container: string | undefined, pod: Obj): string {
  const name = pod.metadata.name;
  if (container) {
    if (!containerNames(pod).includes(container)) {
      throw badRequest(`container ${container} is not valid for pod ${name}`);
    }
    return container;
  }
  const regular = (pod.spec.containers ?? []) as Obj[];
  if (regular.length === 1) return regular[0]!.name;
  if (regular.length === 0) throw badRequest(`a container name must be specified for pod ${name}`);
  throw badRequest(
    `a container name must be specified for pod ${name}, choose one of: [${containerNames(pod).join(' ')}]`,
  );
}

const PREFERRED_ADDRESS_TYPES = ['InternalIP', 'ExternalIP', 'Hostname'];

/** The URL LogLocation builds: the node's preferred address, its kubelet port, the options set. */
function kubeletLocation(node: Obj, pod: Obj, container: string, o: PodLogOptions): URL {
  const addresses = (node.status?.addresses ?? []) as Obj[];
  const address = PREFERRED_ADDRESS_TYPES.map((type) => addresses.find((a) => a.type === type)).find(Boolean);
  if (!address) {
    const known = addresses.map((a) => `{${a.type} ${a.address}}`).join(' ');
    throw new ApiError(500, '', `no preferred addresses found; known addresses: [${known}]`);
  }
  const reported = Number(node.status?.daemonEndpoints?.kubeletEndpoint?.Port ?? 0);
  const port = reported > 0 ? reported : 10250;
  const params = new URLSearchParams();
  // url.Values.Encode: keys in sorted order.
  const set: [string, string | undefined][] = [
    ['follow', o.follow ? 'true' : undefined],
    ['limitBytes', o.limitBytes?.toString()],
    ['previous', o.previous ? 'true' : undefined],
    ['sinceSeconds', o.sinceSeconds?.toString()],
    ['tailLines', o.tailLines?.toString()],
    ['timestamps', o.timestamps ? 'true' : undefined],
  ];
  for (const [key, value] of set) if (value !== undefined) params.set(key, value);
  const { namespace, name } = pod.metadata;
  const url = new URL(`https://${address.address}:${port}/containerLogs/${namespace}/${name}/${container}`);
  url.search = params.toString();
  return url;
}

/** validateContainerLogStatus: the containerID whose log to read, or the kubelet's 400. */
function instanceToRead(pod: Obj, container: string, previous: boolean): string {
  const podName = pod.metadata.name;
  const status = pod.status ?? {};
  const all = ['containerStatuses', 'initContainerStatuses', 'ephemeralContainerStatuses'].flatMap(
    (key) => (status[key] ?? []) as Obj[],
  );
  const cs = all.find((c) => c.name === container);
  const refuse = (what: string) => badRequest(`container "${container}" in pod "${podName}" ${what}`);
  if (!cs) throw refuse('is not available');
  const last = cs.lastState?.terminated as Obj | undefined;
  const { waiting, running, terminated } = (cs.state ?? {}) as Obj;
  if (previous) {
    if (!last?.containerID) {
      throw badRequest(`previous terminated container "${container}" in pod "${podName}" not found`);
    }
    return last.containerID;
  }
  if (running) return cs.containerID;
  if (terminated) {
    if (terminated.containerID) return terminated.containerID;
    if (last?.containerID) return last.containerID;
    throw refuse('is terminated');
  }
  if (last) {
    if (!last.containerID) throw refuse('is terminated');
    return last.containerID;
  }
  if (waiting) {
    switch (waiting.reason) {
      case 'ErrImagePull':
        throw refuse("is waiting to start: image can't be pulled");
      case 'ImagePullBackOff':
        throw refuse('is waiting to start: trying and failing to pull image');
      default:
        throw refuse(`is waiting to start: ${waiting.reason ?? ''}`);
    }
  }
  throw refuse('is waiting to start - no logs yet');
}

/** The kubelet's answer: the log as `text/plain`; with `follow`, open until the instance ends. */
function streamLog(
  log: ContainerLog | undefined,
  options: LogReadOptions,
  now: Date,
  res: ServerResponse,
): void {
  res.writeHead(200, { 'content-type': 'text/plain' });
  const reader = new LogReader(options, now, (bytes) => res.write(bytes));
  // A container the stand-in kubelet never ran a process for (kubeletFaults.ts) wrote nothing.
  const done = reader.start(log?.records ?? []);
  if (done || !options.follow || !log || log.ended) {
    res.end();
    return;
  }
  const onRecord = (record: LogRecord) => {
    if (reader.next(record)) finish();
  };
  const finish = () => {
    log.off('record', onRecord);
    log.off('end', finish);
    res.end();
  };
  log.on('record', onRecord);
  log.on('end', finish);
  res.on('close', () => {
    log.off('record', onRecord);
    log.off('end', finish);
  });
}
