import type { Obj } from './types';

/** What the stand-in kubelet knows of one container of a pod it runs (podProcesses.ts). */
export interface TrackedContainer {
  spec: Obj;
  /** A regular init container, a native sidecar (init with restartPolicy Always), or a main one. */
  kind: 'init' | 'sidecar' | 'main';
  restartCount: number;
  /** The running or last instance's id (`containerd://…`); none before the first starts. */
  containerID?: string;
  /** `{ waiting }`, `{ running }` or `{ terminated }`, as ContainerStatus.state. */
  state: Obj;
  /** The previous instance's end (`{ terminated }`) once the container was restarted. */
  lastState?: Obj;
}

interface StatusContext {
  startTime: string;
  now: string;
  /** Each condition's status and when it last changed: a condition keeps its time until it flips. */
  transitions: Map<string, { status: string; at: string }>;
  addresses?: { hostIP: string; podIP: string };
}

/** A digest-pinned reference, as the runtime reports the image a container runs. */
const imageID = (image: string) => `${image}@sha256:${'0'.repeat(64)}`;

function containerStatus(t: TrackedContainer): Obj {
  const running = Boolean(t.state.running);
  return {
    name: t.spec.name,
    state: t.state,
    lastState: t.lastState ?? {},
    // No probes: a running container is ready.
    ready: running,
    restartCount: t.restartCount,
    image: t.spec.image,
    imageID: t.containerID ? imageID(t.spec.image) : '',
    ...(t.containerID ? { containerID: t.containerID } : {}),
    started: running,
  };
}

const names = (ts: TrackedContainer[]) => `[${ts.map((t) => t.spec.name).join(' ')}]`;

/**
 * The pod status the kubelet writes for `phase` (generateAPIPodStatus, with its condition rules:
 * status/generate.go), its shape after 09-job-pod #7, #9 and #16: PodReadyToStartContainers,
 * Initialized, Ready and ContainersReady (the PodScheduled condition is the scheduler's), the init
 * containers and native sidecars in initContainerStatuses, the main ones in containerStatuses.
 * Not recorded beyond those: the Pending status and the reasons and messages of conditions that
 * are False (`containers with unready status: [main]`) are upstream's. The answer is the body of a
 * strategic merge patch: what a condition no longer has is null, so that the merge drops it.
 */
export function podStatusOf(phase: string, tracked: TrackedContainer[], ctx: StatusContext): Obj {
  const terminal = phase === 'Succeeded' || phase === 'Failed';
  const inits = tracked.filter((t) => t.kind === 'init');
  const runningOnes = tracked.filter((t) => t.kind !== 'init');
  const started = tracked.some((t) => t.containerID);
  const incomplete = inits.filter((t) => t.state.terminated?.exitCode !== 0);
  const unready = runningOnes.filter((t) => !t.state.running);
  const condition = (type: string, status: boolean, reason?: string, message?: string): Obj => {
    const value = status ? 'True' : 'False';
    const last = ctx.transitions.get(type);
    const at = last && last.status === value ? last.at : ctx.now;
    ctx.transitions.set(type, { status: value, at });
    // Conditions merge by type: a reason or message the condition no longer has is deleted (null).
    return {
      type,
      status: value,
      reason: reason ?? null,
      message: message ?? null,
      lastProbeTime: null,
      lastTransitionTime: at,
    };
  };
  const readiness = (type: string) =>
    terminal
      ? condition(type, false, 'PodCompleted')
      : unready.length
        ? condition(type, false, 'ContainersNotReady', `containers with unready status: ${names(unready)}`)
        : condition(type, true);
  const withInit = tracked.filter((t) => t.kind !== 'main');
  return {
    phase,
    conditions: [
      condition('PodReadyToStartContainers', started && !terminal),
      incomplete.length
        ? condition(
            'Initialized',
            false,
            'ContainersNotInitialized',
            `containers with incomplete status: ${names(incomplete)}`,
          )
        : condition('Initialized', true),
      readiness('Ready'),
      readiness('ContainersReady'),
    ],
    ...(ctx.addresses
      ? {
          hostIP: ctx.addresses.hostIP,
          hostIPs: [{ ip: ctx.addresses.hostIP }],
          ...(started ? { podIP: ctx.addresses.podIP, podIPs: [{ ip: ctx.addresses.podIP }] } : {}),
        }
      : {}),
    startTime: ctx.startTime,
    ...(withInit.length ? { initContainerStatuses: withInit.map(containerStatus) } : {}),
    containerStatuses: tracked.filter((t) => t.kind === 'main').map(containerStatus),
  };
}
