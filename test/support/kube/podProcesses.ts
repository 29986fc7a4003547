import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ContainerLogWriter } from './containerLogs';
import {
  containerArgv,
  containerEnvironment,
  ContainerConfigError,
  type EnvironmentSources,
} from './expansion';
import { podStatusOf, type TrackedContainer } from './podStatus';
import { rfc3339, type Obj } from './types';

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
  /** The node's clock, for the times the kubelet writes (default: the wall clock). */
  now?: () => Date;
  /**
   * Where a container instance's stdout and stderr go (the runtime's log file, for pods/log):
   * called once per instance, restarts included. Without it the output is discarded.
   */
  logs?(containerName: string, containerID: string): ContainerLogWriter;
  /** The node's and the pod's address, for status.hostIP and status.podIP. */
  addresses?: { hostIP: string; podIP: string };
  /**
   * The kubelet's CrashLoopBackOff before the second and each later restart of a container of a
   * `restartPolicy: OnFailure` pod: this, doubled each time up to 5 minutes (upstream: 10 s, the
   * default). The first restart is immediate, as upstream.
   */
  crashLoopBackOffMs?: number;
}

export interface LocalPod {
  /** The pod's outcome: 0 when every container succeeded, else the first failing exit code. */
  exitCode: Promise<number>;
  /** What the kubelet does when the pod is deleted: TERM to every container, then KILL. */
  kill(): void;
}

const MAX_BACKOFF_MS = 300_000;

/**
 * Runs one pod as a kubelet would, but as local processes: each container's environment and argv
 * are resolved and expanded as the kubelet does (expansion.ts), so a container sees exactly what it
 * would see in a cluster. Native sidecars (init containers with restartPolicy Always) start first
 * and get TERM once the main containers have exited; they do not decide the pod's phase. Other init
 * containers run to completion one by one before them; one that fails fails the pod (the rule of
 * `restartPolicy: Never`; under OnFailure a real kubelet would restart it, not emulated). The image's
 * `crondeck` is this checkout's CLI, any other program the machine's own (a job image's /bin/sh).
 * Each container is a process group: when its main process exits, what it left running is killed,
 * as a container's PID namespace ends with its first process.
 *
 * A process cannot be given a mount, so each emptyDir (but one mounted at /tmp, which the machine
 * serves) is a temporary directory, and its mount path is rewritten to that directory in the
 * containers' argv and environment after expansion: the containers share one directory at the path
 * they were given, as in a pod.
 *
 * Status (podStatus.ts) follows the kubelet's writes: Pending with the containers waiting
 * (ContainerCreating, or PodInitializing behind init containers), Running with every container
 * running, then Succeeded or Failed with each container's exit code (09-job-pod #7, #9, #16). Under
 * `restartPolicy: OnFailure` a failed main container is restarted in the pod: restartCount,
 * lastState.terminated, and CrashLoopBackOff between later restarts. A container whose environment
 * cannot be resolved (a missing Secret) throws a ContainerConfigError before anything starts.
 */
export async function startLocalPod(pod: Obj, options: LocalPodOptions): Promise<LocalPod> {
  const allInit = (pod.spec.initContainers ?? []) as Obj[];
  const mains = pod.spec.containers as Obj[];
  // Everything resolved before anything starts: a config error leaves the pod Pending, untouched.
  const prepared = new Map(
    [...allInit, ...mains].map((container) => {
      const env = containerEnvironment(container, options.sources);
      return [container.name as string, { env, argv: containerArgv(container, env) }];
    }),
  );
  const now = options.now ?? (() => new Date());
  const startTime = rfc3339(now());
  const tracked: TrackedContainer[] = [
    ...allInit.map((spec): TrackedContainer => ({
      spec,
      kind: spec.restartPolicy === 'Always' ? 'sidecar' : 'init',
      restartCount: 0,
      state: { waiting: { reason: 'PodInitializing' } },
    })),
    ...mains.map((spec): TrackedContainer => ({
      spec,
      kind: 'main',
      restartCount: 0,
      state: { waiting: { reason: allInit.length ? 'PodInitializing' : 'ContainerCreating' } },
    })),
  ];
  const ofKind = (kind: TrackedContainer['kind']) => tracked.filter((t) => t.kind === kind);
  // The first init container (or, without any, every container) is being created.
  for (const t of allInit.length ? ofKind('init').slice(0, 1) : tracked) {
    t.state = { waiting: { reason: 'ContainerCreating' } };
  }
  const transitions = new Map<string, { status: string; at: string }>();
  let writes = Promise.resolve();
  /** The whole status as it is now, written in order (a later write never overtakes one before). */
  const write = (phase: string): Promise<void> => {
    const status = podStatusOf(phase, tracked, {
      startTime,
      now: rfc3339(now()),
      transitions,
      addresses: options.addresses,
    });
    writes = writes.then(() => options.writeStatus(status));
    return writes;
  };
  await write('Pending');

  const volumes = emptyDirs(pod);
  const crondeck = options.crondeck ?? CRONDECK_FROM_SOURCES;
  const running = new Set<ChildProcess>();
  let killed = false;
  /** Ends the CrashLoopBackOff waits under way (a killed pod restarts nothing). */
  const backOffs = new Set<() => void>();

  /** Starts one instance of a container; resolves with its exit code once its output is read. */
  const start = (t: TrackedContainer): Promise<number> => {
    const { env, argv } = prepared.get(t.spec.name)!;
    const mounted = mountRewriter(t.spec, volumes);
    const processEnv: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
    for (const [name, value] of env) processEnv[name] = mounted(value);
    const [program, ...args] = argv.map(mounted);
    if (!program) throw new ContainerConfigError(`container ${t.spec.name} has no command`);
    const full = program === 'crondeck' ? [...crondeck, ...args] : [program, ...args];
    // The container's working directory, as a kubelet starts it (its image's otherwise: here, the checkout).
    const cwd = typeof t.spec.workingDir === 'string' ? mounted(t.spec.workingDir) : ROOT;
    const containerID = `containerd://${randomBytes(32).toString('hex')}`;
    const log = options.logs?.(t.spec.name, containerID);
    const child = spawn(full[0]!, full.slice(1), {
      cwd,
      env: processEnv,
      stdio: ['ignore', log ? 'pipe' : 'ignore', log ? 'pipe' : 'ignore'],
      detached: true,
    });
    child.stdout?.on('data', (chunk: Buffer) => log!.write('stdout', chunk));
    child.stderr?.on('data', (chunk: Buffer) => log!.write('stderr', chunk));
    running.add(child);
    const startedAt = rfc3339(now());
    t.containerID = containerID;
    t.state = { running: { startedAt } };
    return new Promise<{ exitCode: number; startError?: string }>((done) => {
      child.on('error', (error: NodeJS.ErrnoException) =>
        done({ exitCode: 128, startError: startErrorOf(full[0]!, error) }),
      );
      // What the container's first process left behind goes with it (its PID namespace ends).
      child.on('exit', () => killGroup(child, 'SIGKILL'));
      child.on('close', (code, signal) =>
        done({ exitCode: code ?? 128 + (signal ? constants.signals[signal] : 0) }),
      );
    }).then(({ exitCode, startError }) => {
      running.delete(child);
      log?.end();
      t.state = {
        terminated: startError
          ? // The runtime never started the process: no start time (Go's zero time), its error.
            {
              exitCode,
              reason: 'StartError',
              message: startError,
              startedAt: '1970-01-01T00:00:00Z',
              finishedAt: rfc3339(now()),
              containerID,
            }
          : {
              exitCode,
              reason: exitCode === 0 ? 'Completed' : 'Error',
              startedAt,
              finishedAt: rfc3339(now()),
              containerID,
            },
      };
      return exitCode;
    });
  };

  /** A main container until it is done: under OnFailure, restarted after each failure. */
  const runMain = async (t: TrackedContainer, first: Promise<number>): Promise<number> => {
    let exitCode = await first;
    while (exitCode !== 0 && !killed && pod.spec.restartPolicy === 'OnFailure') {
      t.lastState = { terminated: t.state.terminated };
      if (t.restartCount > 0) {
        const delay = Math.min(
          (options.crashLoopBackOffMs ?? 10_000) * 2 ** (t.restartCount - 1),
          MAX_BACKOFF_MS,
        );
        t.state = {
          waiting: {
            reason: 'CrashLoopBackOff',
            message: `back-off ${goDuration(delay)} restarting failed container=${t.spec.name} pod=${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`,
          },
        };
        await write('Running');
        await new Promise<void>((woken) => {
          const wake = () => {
            clearTimeout(timer);
            backOffs.delete(wake);
            woken();
          };
          const timer = setTimeout(wake, delay);
          backOffs.add(wake);
        });
        if (killed) break;
      }
      t.restartCount += 1;
      const next = start(t);
      await write('Running');
      exitCode = await next;
    }
    return exitCode;
  };

  const exitCode = (async () => {
    try {
      for (const init of ofKind('init')) {
        const exited = start(init);
        await write('Pending');
        const code = await exited;
        if (code !== 0 || killed) {
          await write('Failed');
          return code || 137;
        }
      }
      const sidecarRuns = ofKind('sidecar').map((sidecar) => ({ sidecar, exited: start(sidecar) }));
      const mainRuns = ofKind('main').map((main) => runMain(main, start(main)));
      await write('Running');
      const codes = await Promise.all(mainRuns);
      for (const child of running) child.kill('SIGTERM');
      await Promise.all(sidecarRuns.map((run) => run.exited));
      const failed = codes.find((code) => code !== 0) ?? 0;
      await write(failed === 0 ? 'Succeeded' : 'Failed');
      return failed;
    } finally {
      for (const dir of volumes.values()) rmSync(dir, { recursive: true, force: true });
    }
  })();
  const kill = () => {
    killed = true;
    for (const wake of [...backOffs]) wake();
    for (const child of running) child.kill('SIGTERM');
    setTimeout(() => {
      for (const child of running) killGroup(child, 'SIGKILL');
    }, 2000).unref();
  };
  if (options.deadlineMs !== undefined) {
    const deadline = setTimeout(kill, options.deadlineMs);
    void exitCode.finally(() => clearTimeout(deadline)).catch(() => undefined);
  }
  return { exitCode, kill };
}

/**
 * containerd 1.7 with runc 1.1's message for a command it cannot execute (the terminated state's
 * `message`, reason StartError, exit code 128). Other runtime versions word the middle differently.
 */
function startErrorOf(program: string, error: NodeJS.ErrnoException): string {
  const why =
    error.code === 'ENOENT'
      ? program.includes('/')
        ? `stat ${program}: no such file or directory`
        : 'executable file not found in $PATH'
      : error.code === 'EACCES'
        ? 'permission denied'
        : error.message;
  return `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: ${JSON.stringify(program)}: ${why}: unknown`;
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is gone already.
  }
}

/** Go's time.Duration String of a whole number of milliseconds: `10s`, `1m20s`, `250ms`. */
function goDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = (ms % 60_000) / 1000;
  return minutes ? `${minutes}m${seconds}s` : `${seconds}s`;
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
