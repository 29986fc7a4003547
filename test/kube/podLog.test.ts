import { ApiException, CoreV1Api, type V1PodSpec } from '@kubernetes/client-node';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeEmulator } from '../support/kube/emulator';
import { kubeConfigFor } from '../support/kube/kubeconfig';
import { runPod } from '../support/kube/kubelet';
import { failImagePull } from '../support/kube/kubeletFaults';
import { bindToStandInNode } from '../support/kube/standInNode';
import type { Obj } from '../support/kube/types';

/**
 * GET pods/{name}/log through the real @kubernetes/client-node (CoreV1Api.readNamespacedPodLog).
 * All of it goes beyond the recorded transcripts, which had no kubelet (README "Not recorded"):
 * the status codes and texts are upstream kube-apiserver v1.32's (registry/core/pod/rest/log.go,
 * pod/strategy.go LogLocation and validateContainer, ValidatePodLogOptions) and the kubelet's
 * (kubelet_pods.go validateContainerLogStatus, server.go getContainerLogs, kuberuntime/logs).
 */

const NS = 'logs';
const IMAGE = 'busybox:1.36';

async function refusal(answer: Promise<unknown>): Promise<{ code: number; body: Obj }> {
  try {
    await answer;
  } catch (error) {
    if (error instanceof ApiException) {
      return { code: error.code, body: JSON.parse(error.body as string) as Obj };
    }
    throw error;
  }
  throw new Error('the request was answered');
}

async function until<T>(check: () => T | undefined | false, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('pods/log as kube-apiserver and the kubelet serve it (upstream behaviour, not recorded)', () => {
  let emu: KubeEmulator;
  let core: CoreV1Api;
  let clockOffsetMs: number;

  beforeEach(async () => {
    clockOffsetMs = 0;
    emu = await KubeEmulator.start({ now: () => new Date(Date.now() + clockOffsetMs) });
    core = kubeConfigFor(emu).makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: NS } } });
  });
  afterEach(() => emu.stop());

  const createPod = (name: string, spec: V1PodSpec) =>
    core.createNamespacedPod({ namespace: NS, body: { metadata: { name }, spec } });
  const shPod = (name: string, script: string, spec: Partial<V1PodSpec> = {}) =>
    createPod(name, {
      restartPolicy: 'Never',
      containers: [{ name: 'main', image: IMAGE, command: ['sh', '-c', script] }],
      ...spec,
    });
  const logOf = (name: string, params: Partial<Parameters<CoreV1Api['readNamespacedPodLog']>[0]> = {}) =>
    core.readNamespacedPodLog({ namespace: NS, name, ...params });
  const raw = (name: string, query: string) =>
    fetch(`${emu.url}/api/v1/namespaces/${NS}/pods/${name}/log${query}`, {
      headers: { authorization: `Bearer ${emu.adminToken}`, accept: 'application/json, */*;q=0.8' },
    });

  test('answers what the container wrote, each stream in its order, an unterminated last line as written', async () => {
    await shPod('echo', 'echo one; echo two >&2; echo three; echo four >&2; printf tail');
    expect(await runPod(emu, NS, 'echo')).toBe(0);
    const text = await logOf('echo');
    const lines = text.split('\n');
    // The two pipes are read side by side: lines keep their order within a stream.
    expect([...lines].sort()).toEqual(['four', 'one', 'tail', 'three', 'two']);
    expect(lines.filter((l) => ['one', 'three'].includes(l))).toEqual(['one', 'three']);
    expect(lines.filter((l) => ['two', 'four'].includes(l))).toEqual(['two', 'four']);
    expect(text.endsWith('\ntail')).toBe(true);
    const raw200 = await raw('echo', '');
    expect(raw200.status).toBe(200);
    expect(raw200.headers.get('content-type')).toBe('text/plain');
  });

  test('tailLines, limitBytes, timestamps and sinceSeconds as the kubelet applies them', async () => {
    await shPod('abc', "printf 'a\\nb\\nc\\n'");
    expect(await runPod(emu, NS, 'abc')).toBe(0);
    expect(await logOf('abc', { tailLines: 2 })).toBe('b\nc\n');
    expect(await logOf('abc', { limitBytes: 3 })).toBe('a\nb');
    const stamped = await logOf('abc', { timestamps: true, tailLines: 1 });
    expect(stamped).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z c\n$/);
    expect(await logOf('abc', { sinceSeconds: 600 })).toBe('a\nb\nc\n');
    clockOffsetMs = 3_600_000;
    expect(await logOf('abc', { sinceSeconds: 600 })).toBe('');
  });

  test('a pod of several containers needs `container` (init containers are listed first)', async () => {
    await createPod('multi', {
      restartPolicy: 'Never',
      initContainers: [{ name: 'setup', image: IMAGE, command: ['sh', '-c', 'echo set up'] }],
      containers: [
        { name: 'a', image: IMAGE, command: ['sh', '-c', 'echo from a'] },
        { name: 'b', image: IMAGE, command: ['sh', '-c', 'echo from b'] },
      ],
    });
    expect(await runPod(emu, NS, 'multi')).toBe(0);
    expect(await refusal(logOf('multi'))).toEqual({
      code: 400,
      body: expect.objectContaining({
        reason: 'BadRequest',
        message: 'a container name must be specified for pod multi, choose one of: [setup a b]',
      }),
    });
    expect(await logOf('multi', { container: 'b' })).toBe('from b\n');
    expect(await logOf('multi', { container: 'setup' })).toBe('set up\n');
    expect((await refusal(logOf('multi', { container: 'nope' }))).body.message).toBe(
      'container nope is not valid for pod multi',
    );
  });

  test('previous: the instance before a restart (restartPolicy OnFailure); none before any restart', async () => {
    await createPod('flaky', {
      restartPolicy: 'OnFailure',
      volumes: [{ name: 'work', emptyDir: {} }],
      containers: [
        {
          name: 'main',
          image: IMAGE,
          command: [
            'sh',
            '-c',
            'if [ -e /work/once ]; then echo second; else touch /work/once; echo first; exit 1; fi',
          ],
          volumeMounts: [{ name: 'work', mountPath: '/work' }],
        },
      ],
    });
    expect(await runPod(emu, NS, 'flaky')).toBe(0);
    const [status] = (await core.readNamespacedPod({ namespace: NS, name: 'flaky' })).status!
      .containerStatuses!;
    expect(status!.restartCount).toBe(1);
    expect(status!.lastState?.terminated?.exitCode).toBe(1);
    expect(await logOf('flaky')).toBe('second\n');
    expect(await logOf('flaky', { previous: true })).toBe('first\n');

    await shPod('once', 'echo only');
    expect(await runPod(emu, NS, 'once')).toBe(0);
    expect(await refusal(logOf('once', { previous: true }))).toEqual({
      code: 400,
      body: expect.objectContaining({
        reason: 'BadRequest',
        message: 'previous terminated container "main" in pod "once" not found',
      }),
    });
  });

  test('a container that has not started: 204 before a node, then the kubelet’s 400 with the reason it waits', async () => {
    await shPod('waits', 'echo hi');
    // No node yet: LogLocation has no location, and the API server answers 204 without a body or
    // a content type, which client-node cannot parse (what a caller meets on a real cluster too).
    const unscheduled = await raw('waits', '');
    expect(unscheduled.status).toBe(204);
    expect(unscheduled.headers.get('content-type')).toBeNull();
    expect(await unscheduled.text()).toBe('');
    await expect(logOf('waits')).rejects.toThrow('Cannot parse content. No Content-Type defined.');

    await bindToStandInNode(emu, emu.store.get('/pods', NS, 'waits')!);
    expect((await refusal(logOf('waits'))).body.message).toBe(
      'container "main" in pod "waits" is not available',
    );
    await core.patchNamespacedPodStatus({
      namespace: NS,
      name: 'waits',
      body: [
        {
          op: 'add',
          path: '/status/containerStatuses',
          value: [{ name: 'main', image: IMAGE, state: { waiting: { reason: 'ContainerCreating' } } }],
        },
      ],
    });
    expect(await refusal(logOf('waits'))).toEqual({
      code: 400,
      body: expect.objectContaining({
        reason: 'BadRequest',
        message: 'container "main" in pod "waits" is waiting to start: ContainerCreating',
      }),
    });

    await shPod('pull', 'echo hi');
    await failImagePull(emu, NS, 'pull');
    expect((await refusal(logOf('pull'))).body.message).toBe(
      'container "main" in pod "pull" is waiting to start: trying and failing to pull image',
    );
  });

  test('behind a running init container the main one waits with PodInitializing, the init one is read', async () => {
    const gate = mkdtempSync(join(tmpdir(), 'pod-log-gate-'));
    try {
      await createPod('init', {
        restartPolicy: 'Never',
        initContainers: [
          {
            name: 'gate',
            image: IMAGE,
            command: [
              'sh',
              '-c',
              `echo waiting; while [ -d ${gate} ] && [ ! -e ${gate}/open ]; do sleep 0.05; done`,
            ],
          },
        ],
        containers: [{ name: 'main', image: IMAGE, command: ['sh', '-c', 'echo ran'] }],
      });
      const run = runPod(emu, NS, 'init');
      await until(
        () => emu.store.get('/pods', NS, 'init')?.status?.initContainerStatuses?.[0]?.state?.running,
        'the init container running',
      );
      expect((await refusal(logOf('init', { container: 'main' }))).body.message).toBe(
        'container "main" in pod "init" is waiting to start: PodInitializing',
      );
      // Its output arrives when the runtime reads it: poll for it.
      const deadline = Date.now() + 10_000;
      while ((await logOf('init', { container: 'gate' })) !== 'waiting\n' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(await logOf('init', { container: 'gate' })).toBe('waiting\n');
      writeFileSync(join(gate, 'open'), '');
      expect(await run).toBe(0);
      expect(await logOf('init', { container: 'main' })).toBe('ran\n');
    } finally {
      rmSync(gate, { recursive: true, force: true });
    }
  });

  test('follow streams the log until the container ends', async () => {
    const gate = mkdtempSync(join(tmpdir(), 'pod-log-follow-'));
    try {
      await shPod(
        'follow',
        `echo first; while [ -d ${gate} ] && [ ! -e ${gate}/go ]; do sleep 0.05; done; echo second`,
      );
      const run = runPod(emu, NS, 'follow');
      await until(
        () => emu.store.get('/pods', NS, 'follow')?.status?.containerStatuses?.[0]?.state?.running,
        'the container running',
      );
      const response = await raw('follow', '?follow=true');
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      let text = '';
      while (!text.includes('first\n')) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the stream ended early: ${JSON.stringify(text)}`);
        text += Buffer.from(value).toString();
      }
      writeFileSync(join(gate, 'go'), '');
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += Buffer.from(value).toString();
      }
      expect(text).toBe('first\nsecond\n');
      expect(await run).toBe(0);
    } finally {
      rmSync(gate, { recursive: true, force: true });
    }
  });

  test('404 for a pod that is not there, or no longer: its log goes with it', async () => {
    expect(await refusal(logOf('nope'))).toEqual({
      code: 404,
      body: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'pods "nope" not found',
        reason: 'NotFound',
        details: { name: 'nope', kind: 'pods' },
        code: 404,
      },
    });
    await shPod('gone', 'echo bye');
    expect(await runPod(emu, NS, 'gone')).toBe(0);
    expect(await logOf('gone')).toBe('bye\n');
    await core.deleteNamespacedPod({ namespace: NS, name: 'gone' });
    expect((await refusal(logOf('gone'))).body.message).toBe('pods "gone" not found');
  });

  test('RBAC: reading a log needs `get` on pods/log, not only on pods', async () => {
    await shPod('secret', 'echo classified');
    expect(await runPod(emu, NS, 'secret')).toBe(0);
    const rbac = `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`;
    const role = async (name: string, resources: string[]) => {
      const res = await fetch(`${emu.url}${rbac}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${emu.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          metadata: { name },
          rules: [{ apiGroups: [''], resources, verbs: ['get', 'list'] }],
        }),
      });
      expect(res.status).toBe(201);
    };
    await role('pods-only', ['pods']);
    const reader = await emu.serviceAccountToken(NS, 'reader', {
      grants: [{ role: 'pods-only', namespace: NS }],
    });
    const asReader = kubeConfigFor(emu, reader.token).makeApiClient(CoreV1Api);
    expect((await asReader.readNamespacedPod({ namespace: NS, name: 'secret' })).metadata!.name).toBe(
      'secret',
    );
    expect(await refusal(asReader.readNamespacedPodLog({ namespace: NS, name: 'secret' }))).toEqual({
      code: 403,
      body: expect.objectContaining({
        reason: 'Forbidden',
        message: `pods "secret" is forbidden: User "system:serviceaccount:${NS}:reader" cannot get resource "pods/log" in API group "" in the namespace "${NS}"`,
        details: { name: 'secret', kind: 'pods' },
      }),
    });
    await role('logs', ['pods/log']);
    await emu.grant(
      { kind: 'ServiceAccount', name: 'reader', namespace: NS },
      { role: 'logs', namespace: NS },
    );
    expect(await asReader.readNamespacedPodLog({ namespace: NS, name: 'secret' })).toBe('classified\n');
  });

  test('a kubelet the API server cannot reach: 500 without a reason; a kubelet answering an error', async () => {
    await shPod('cut-off', 'echo unseen');
    expect(await runPod(emu, NS, 'cut-off')).toBe(0);
    emu.podLogFaults.set({ kind: 'unreachable' });
    expect(await refusal(logOf('cut-off', { tailLines: 5, timestamps: true }))).toEqual({
      code: 500,
      body: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message:
          'Get "https://10.0.0.1:10250/containerLogs/logs/cut-off/main?tailLines=5&timestamps=true": dial tcp 10.0.0.1:10250: connect: connection refused',
        code: 500,
      },
    });
    emu.podLogFaults.set({ kind: 'unreachable', dialError: 'i/o timeout' });
    expect((await refusal(logOf('cut-off'))).body.message).toBe(
      'Get "https://10.0.0.1:10250/containerLogs/logs/cut-off/main": dial tcp 10.0.0.1:10250: i/o timeout',
    );
    emu.podLogFaults.set({ kind: 'answers', status: 502, body: 'Bad Gateway' }, { count: 1 });
    expect(await refusal(logOf('cut-off'))).toEqual({
      code: 502,
      body: expect.objectContaining({
        reason: 'InternalError',
        message:
          'an error on the server ("Bad Gateway") has prevented the request from succeeding ( pods/log cut-off)',
        details: { name: 'cut-off', kind: 'pods/log' },
      }),
    });
    // `count: 1`: the next read reaches the kubelet again.
    expect(await logOf('cut-off')).toBe('unseen\n');
    emu.podLogFaults.set({ kind: 'answers', status: 500, body: 'failed to open log file' });
    expect((await refusal(logOf('cut-off'))).body).toEqual(
      expect.objectContaining({
        reason: 'InternalError',
        message: 'Internal error occurred: failed to open log file',
        details: { causes: [{ message: 'failed to open log file' }] },
      }),
    );
    emu.podLogFaults.clear();
    expect(await logOf('cut-off')).toBe('unseen\n');
  });

  test('a pod on a node no stand-in kubelet plays is unreachable; on a node that does not exist, 404', async () => {
    await core.createNode({ body: { metadata: { name: 'kr-node-1' } } });
    await core.patchNodeStatus({
      name: 'kr-node-1',
      body: [
        { op: 'add', path: '/status/addresses', value: [{ type: 'InternalIP', address: '10.10.0.11' }] },
      ],
    });
    await shPod('elsewhere', 'echo hi', { nodeName: 'kr-node-1' });
    expect((await refusal(logOf('elsewhere'))).body.message).toBe(
      'Get "https://10.10.0.11:10250/containerLogs/logs/elsewhere/main": dial tcp 10.10.0.11:10250: connect: connection refused',
    );
    await shPod('ghost', 'echo hi', { nodeName: 'ghost-node' });
    expect(await refusal(logOf('ghost'))).toEqual({
      code: 404,
      body: expect.objectContaining({ reason: 'NotFound', message: 'nodes "ghost-node" not found' }),
    });
  });

  test('options that do not decode (400) or validate (422), as the API server refuses them', async () => {
    await shPod('opts', 'echo hi');
    expect(await refusal(logOf('opts', { tailLines: -1 }))).toEqual({
      code: 422,
      body: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message:
          'PodLogOptions "opts" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0',
        reason: 'Invalid',
        details: {
          name: 'opts',
          kind: 'PodLogOptions',
          causes: [
            {
              reason: 'FieldValueInvalid',
              message: 'Invalid value: -1: must be greater than or equal to 0',
              field: 'tailLines',
            },
          ],
        },
        code: 422,
      },
    });
    expect((await refusal(logOf('opts', { limitBytes: 0, sinceSeconds: 0 }))).body.message).toBe(
      'PodLogOptions "opts" is invalid: [limitBytes: Invalid value: 0: must be greater than 0, sinceSeconds: Invalid value: 0: must be greater than 0]',
    );
    const notANumber = await raw('opts', '?tailLines=ten');
    expect(notANumber.status).toBe(400);
    expect(((await notANumber.json()) as Obj).message).toBe(
      'strconv.ParseInt: parsing "ten": invalid syntax',
    );
    expect((await raw('opts', '?sinceTime=2026-01-01T00:00:00Z')).status).toBe(501);
  });
});
