import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  containerArgv,
  containerEnvironment,
  ContainerConfigError,
  type EnvironmentSources,
} from './expansion';
import type { Obj } from './types';

const ROOT = resolve(__dirname, '../../..');

/** `crondeck` as this checkout's CLI run from its TypeScript sources (no build needed). */
export const CRONDECK_FROM_SOURCES = [
  process.execPath,
  '-r',
  join(ROOT, 'test/support/registerTypeScript.js'),
  join(ROOT, 'src/cli.ts'),
];

export interface LocalPodOptions {
  /** What the container's env refers to (Secrets, ConfigMaps, the pod itself for the downward API). */
  sources: EnvironmentSources;
  /** Writes the pod's status as the kubelet does (a strategic merge patch of pods/status). */
  writeStatus(status: Obj): Promise<void>;
  /** The argv that stands for the image's `crondeck` (default: the sources of this checkout). */
  crondeck?: string[];
  /** Kills the pod after this long, as activeDeadlineSeconds would: a stuck pod fails, never hangs. */
  deadlineMs?: number;
}

export interface LocalPod {
  /** The pod's outcome: 0 when every container succeeded, else the first failing exit code. */
  exitCode: Promise<number>;
  /** What the kubelet does when the pod is deleted: TERM to every container, then KILL. */
  kill(): void;
}

/**
 * Runs one pod as a kubelet would, but as local processes: each container's environment and argv
 * are resolved and expanded as the kubelet does (expansion.ts), so a container sees exactly what it
 * would see in a cluster. Native sidecars (init containers with restartPolicy Always) start first
 * and get TERM once the main containers have exited; they do not decide the pod's phase. Other init
 * containers run to completion one by one before them. The image's `crondeck` is this checkout's
 * CLI, any other program the machine's own (a job image's /bin/sh).
 *
 * A process cannot be given a mount, so each emptyDir (but one mounted at /tmp, which the machine
 * serves) is a temporary directory, and its mount path is rewritten to that directory in the
 * containers' argv and environment after expansion: the containers share one directory at the path
 * they were given, as in a pod.
 *
 * Status follows the kubelet's writes in 09-job-pod: Running with every container running, then
 * Succeeded or Failed with each main container's exit code. A container whose environment cannot
 * be resolved (a missing Secret) throws a ContainerConfigError before anything starts.
 */
export async function startLocalPod(pod: Obj, options: LocalPodOptions): Promise<LocalPod> {
  const allInit = (pod.spec.initContainers ?? []) as Obj[];
  const sidecars = allInit.filter((c) => c.restartPolicy === 'Always');
  const inits = allInit.filter((c) => c.restartPolicy !== 'Always');
  const mains = pod.spec.containers as Obj[];
  // Everything resolved before anything starts: a config error leaves the pod Pending, untouched.
  const prepared = new Map(
    [...allInit, ...mains].map((container) => {
      const env = containerEnvironment(container, options.sources);
      return [container.name as string, { env, argv: containerArgv(container, env) }];
    }),
  );
  const volumes = emptyDirs(pod);
  const crondeck = options.crondeck ?? CRONDECK_FROM_SOURCES;
  const running = new Set<ChildProcess>();
  let killed = false;
  const start = (container: Obj) => {
    const { env, argv } = prepared.get(container.name)!;
    const mounted = mountRewriter(container, volumes);
    const processEnv: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
    for (const [name, value] of env) processEnv[name] = mounted(value);
    const [program, ...args] = argv.map(mounted);
    if (!program) throw new ContainerConfigError(`container ${container.name} has no command`);
    const full = program === 'crondeck' ? [...crondeck, ...args] : [program, ...args];
    // The container's working directory, as a kubelet starts it (its image's otherwise: here, the checkout).
    const cwd = typeof container.workingDir === 'string' ? mounted(container.workingDir) : ROOT;
    const child = spawn(full[0]!, full.slice(1), { cwd, env: processEnv, stdio: 'ignore' });
    running.add(child);
    const exited = new Promise<number>((done) => {
      child.on('error', () => done(127));
      child.on('exit', (code, signal) => done(code ?? 128 + (signal ? constants.signals[signal] : 0)));
    }).finally(() => running.delete(child));
    return { child, exited };
  };
  const startedAt = new Date().toISOString();

  const exitCode = (async () => {
    try {
      for (const init of inits) {
        const code = await start(init).exited;
        if (code !== 0 || killed) return code || 137;
      }
      const sidecarRuns = sidecars.map(start);
      await options.writeStatus(runningStatus(pod, startedAt));
      const codes = await Promise.all(mains.map((container) => start(container).exited));
      for (const sidecar of sidecarRuns) sidecar.child.kill('SIGTERM');
      const sidecarCodes = await Promise.all(sidecarRuns.map((sidecar) => sidecar.exited));
      const failed = codes.find((code) => code !== 0) ?? 0;
      await options.writeStatus(terminatedStatus(pod, startedAt, codes, sidecarCodes));
      return failed;
    } finally {
      for (const dir of volumes.values()) rmSync(dir, { recursive: true, force: true });
    }
  })();
  const kill = () => {
    killed = true;
    for (const child of running) child.kill('SIGTERM');
    setTimeout(() => {
      for (const child of running) child.kill('SIGKILL');
    }, 2000).unref();
  };
  if (options.deadlineMs !== undefined) {
    const deadline = setTimeout(kill, options.deadlineMs);
    void exitCode.finally(() => clearTimeout(deadline)).catch(() => undefined);
  }
  return { exitCode, kill };
}

function mountRewriter(container: Obj, volumes: Map<string, string>): (text: string) => string {
  const mounts = ((container.volumeMounts ?? []) as Obj[]).filter((m) => volumes.has(m.name));
  return (text) => {
    let result = text;
    for (const mount of mounts) result = result.split(mount.mountPath).join(volumes.get(mount.name)!);
    return result;
  };
}

/** A temporary directory for each emptyDir volume but one mounted at /tmp. */
function emptyDirs(pod: Obj): Map<string, string> {
  const atTmp = new Set(
    [...((pod.spec.initContainers ?? []) as Obj[]), ...(pod.spec.containers as Obj[])].flatMap((c) =>
      ((c.volumeMounts ?? []) as Obj[]).filter((m) => m.mountPath === '/tmp').map((m) => m.name as string),
    ),
  );
  const dirs = new Map<string, string>();
  for (const volume of (pod.spec.volumes ?? []) as Obj[]) {
    if (volume.emptyDir && !atTmp.has(volume.name)) {
      dirs.set(volume.name, mkdtempSync(join(tmpdir(), `kubelet-${volume.name}-`)));
    }
  }
  return dirs;
}

const condition = (type: string, status: 'True' | 'False', at: string, reason?: string): Obj => ({
  type,
  status,
  ...(reason ? { reason } : {}),
  lastProbeTime: null,
  lastTransitionTime: at,
});

function containerStatus(container: Obj, state: Obj, ready: boolean): Obj {
  return {
    name: container.name,
    image: container.image,
    imageID: '',
    containerID: `local://${container.name}`,
    ready,
    started: ready,
    restartCount: 0,
    state,
  };
}

function runningStatus(pod: Obj, startedAt: string): Obj {
  const running = (c: Obj) => containerStatus(c, { running: { startedAt } }, true);
  const sidecars = ((pod.spec.initContainers ?? []) as Obj[]).filter((c) => c.restartPolicy === 'Always');
  return {
    phase: 'Running',
    startTime: startedAt,
    conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady'].map((type) =>
      condition(type, 'True', startedAt),
    ),
    ...(sidecars.length ? { initContainerStatuses: sidecars.map(running) } : {}),
    containerStatuses: (pod.spec.containers as Obj[]).map(running),
  };
}

function terminatedStatus(pod: Obj, startedAt: string, codes: number[], sidecarCodes: number[]): Obj {
  const finishedAt = new Date().toISOString();
  const terminated = (c: Obj, exitCode: number) =>
    containerStatus(
      c,
      {
        terminated: {
          exitCode,
          reason: exitCode === 0 ? 'Completed' : 'Error',
          startedAt,
          finishedAt,
          containerID: `local://${c.name}`,
        },
      },
      false,
    );
  const sidecars = ((pod.spec.initContainers ?? []) as Obj[]).filter((c) => c.restartPolicy === 'Always');
  return {
    phase: codes.every((code) => code === 0) ? 'Succeeded' : 'Failed',
    conditions: [
      condition('PodReadyToStartContainers', 'False', finishedAt),
      condition('Initialized', 'True', startedAt),
      condition('Ready', 'False', finishedAt, 'PodCompleted'),
      condition('ContainersReady', 'False', finishedAt, 'PodCompleted'),
    ],
    ...(sidecars.length
      ? { initContainerStatuses: sidecars.map((c, i) => terminated(c, sidecarCodes[i]!)) }
      : {}),
    containerStatuses: (pod.spec.containers as Obj[]).map((c, i) => terminated(c, codes[i]!)),
  };
}
