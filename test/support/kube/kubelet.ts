import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { KubeEmulator } from './emulator';
import type { Obj } from './types';

const ROOT = resolve(__dirname, '../../..');

/**
 * A stand-in kubelet for one pod: resolves each container's environment as a kubelet does (values,
 * Secret keys, the downward API), runs its command as a local process (the Crondeck image's
 * `crondeck` is this checkout's CLI, run from its sources), and writes the pod's status through
 * the API as the kubelet would: Running, then Succeeded or Failed with the exit code.
 *
 * Native sidecars (init containers with restartPolicy Always, Kubernetes 1.29+) start first and
 * are stopped with TERM once the main container has exited; they do not decide the pod's phase.
 * A process cannot be given a mount, so each emptyDir (other than /tmp, which the machine's own
 * serves) is a temporary directory, and its mount path is rewritten to that directory in the
 * containers' commands and environment values: the containers see one directory at the path
 * they were given, as in a pod.
 */
export async function runPod(emu: KubeEmulator, namespace: string, podName: string): Promise<number> {
  const pod = emu.store.get('/pods', namespace, podName);
  if (!pod) throw new Error(`no pod ${namespace}/${podName}`);
  const volumes = emptyDirs(pod);
  const sidecars = ((pod.spec.initContainers ?? []) as Obj[]).filter((c) => c.restartPolicy === 'Always');
  const container = pod.spec.containers[0] as Obj;
  await writeStatus(emu, pod, { phase: 'Running' });
  const running = sidecars.map((sidecar) => start(emu, pod, sidecar, volumes));
  const exitCode = await start(emu, pod, container, volumes).exited;
  for (const sidecar of running) sidecar.process.kill('SIGTERM');
  await Promise.all(running.map((sidecar) => sidecar.exited));
  await writeStatus(emu, pod, {
    phase: exitCode === 0 ? 'Succeeded' : 'Failed',
    containerStatuses: [{ name: container.name, state: { terminated: { exitCode } } }],
  });
  return exitCode;
}

function start(
  emu: KubeEmulator,
  pod: Obj,
  container: Obj,
  volumes: Map<string, string>,
): { process: ChildProcess; exited: Promise<number> } {
  const mounted = (text: string) => {
    let result = text;
    for (const mount of (container.volumeMounts ?? []) as Obj[]) {
      const dir = volumes.get(mount.name);
      if (dir) result = result.split(mount.mountPath).join(dir);
    }
    return result;
  };
  const env = containerEnvironment(emu, pod, container);
  for (const [name, value] of Object.entries(env)) env[name] = value === undefined ? value : mounted(value);
  const [program, ...args] = (container.command as string[]).map(mounted);
  const argv =
    program === 'crondeck'
      ? [
          process.execPath,
          '-r',
          join(ROOT, 'test/support/registerTypeScript.js'),
          join(ROOT, 'src/cli.ts'),
          ...args,
        ]
      : [program!, ...args];
  const child = spawn(argv[0]!, argv.slice(1), { cwd: ROOT, env, stdio: 'ignore' });
  const exited = new Promise<number>((done) =>
    child.on('exit', (code, signal) => done(code ?? (signal ? 128 + 15 : 1))),
  );
  return { process: child, exited };
}

/** A temporary directory for each emptyDir volume but the one mounted at /tmp. */
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

/** Marks a pod failed without running anything (its image could not be pulled, say). */
export function failPodBeforeStart(emu: KubeEmulator, namespace: string, podName: string): Promise<void> {
  const pod = emu.store.get('/pods', namespace, podName)!;
  return writeStatus(emu, pod, { phase: 'Failed', reason: 'ErrImagePull' });
}

function containerEnvironment(emu: KubeEmulator, pod: Obj, container: Obj): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  for (const variable of (container.env ?? []) as Obj[]) {
    const from = variable.valueFrom as Obj | undefined;
    if (!from) {
      env[variable.name] = variable.value ?? '';
    } else if (from.secretKeyRef) {
      const secret = emu.store.get('/secrets', pod.metadata.namespace, from.secretKeyRef.name);
      const value = secret?.data?.[from.secretKeyRef.key];
      if (value === undefined) throw new Error(`CreateContainerConfigError: no ${from.secretKeyRef.name}`);
      env[variable.name] = Buffer.from(value, 'base64').toString('utf8');
    } else if (from.fieldRef) {
      env[variable.name] = fieldOf(pod, from.fieldRef.fieldPath);
    }
  }
  return env;
}

/** The downward API's field paths that pods of Crondeck use. */
function fieldOf(pod: Obj, path: string): string {
  const label = /^metadata\.labels\['(.+)'\]$/.exec(path)?.[1];
  if (label) return pod.metadata.labels?.[label] ?? '';
  if (path === 'metadata.uid') return pod.metadata.uid;
  if (path === 'metadata.name') return pod.metadata.name;
  if (path === 'metadata.namespace') return pod.metadata.namespace;
  throw new Error(`the stand-in kubelet does not resolve ${path}`);
}

async function writeStatus(emu: KubeEmulator, pod: Obj, status: Obj): Promise<void> {
  const { namespace, name } = pod.metadata;
  const response = await fetch(`${emu.url}/api/v1/namespaces/${namespace}/pods/${name}/status`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/merge-patch+json', authorization: `Bearer ${emu.adminToken}` },
    body: JSON.stringify({ status }),
  });
  if (!response.ok) throw new Error(`pod status refused: ${response.status} ${await response.text()}`);
}
