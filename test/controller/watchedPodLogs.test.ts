import { ClusterClient } from '../../src/kube/clusterClient';
import { LOG_TAIL_LINES, PodLogs } from '../../src/controller/watchedCronJobs/podLogs';
import { KubeEmulator } from '../support/kube/emulator';
import { runPod } from '../support/kube/kubelet';
import { kubeConfigFor } from '../support/kube/kubeconfig';
import { createMemoryLogger } from '../support/memoryLogger';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const NS = 'ops';

/**
 * How a watched CronJob's pod log is read (issue 40), through the real client-node against the
 * emulator's pods/log (the stand-in kubelet's log: beyond the recordings, which had no kubelet; its
 * answers follow upstream, test/support/kube/kubelet.ts): the last lines once the pod has ended, a
 * pod not yet on a node (204, on which client-node's own readNamespacedPodLog throws) as no log, and
 * a pod gone (404) said plainly.
 */
describe('reading a watched pod’s log', () => {
  let emu: KubeEmulator;
  let cluster: ClusterClient;
  let logs: PodLogs;

  beforeEach(async () => {
    emu = await KubeEmulator.start();
    emu.seed(emu.typeByName('namespaces'), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    cluster = new ClusterClient(kubeConfigFor(emu), createMemoryLogger());
    logs = new PodLogs((namespace, pod, container) =>
      cluster.readPodLogTail(namespace, pod, container, LOG_TAIL_LINES, 500),
    );
  });
  afterEach(() => emu.stop());

  const seedPod = (name: string, command: string): Obj =>
    emu.seed(emu.typeByName('pods'), {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: NS },
      spec: {
        restartPolicy: 'Never',
        containers: [{ name: 'main', image: 'busybox:1.36', command: ['sh', '-c', command] }],
      },
    });
  const stored = (name: string) => emu.store.get('/pods', NS, name)!;

  it('answers null for a pod on no node yet (204), and the log once the pod ran', async () => {
    seedPod('waiting', 'echo never');
    expect(await cluster.readPodLogTail(NS, 'waiting', 'main', 10, 5000)).toBeNull();

    seedPod('ran', 'for i in 1 2 3 4 5; do echo line $i; done; echo oops >&2; exit 1');
    expect(await runPod(emu, NS, 'ran')).toBe(1);
    expect(await cluster.readPodLogTail(NS, 'ran', 'main', 2, 5000)).toBe('line 5\noops\n');
  });

  it('reads a pod’s log once its container has ended, not before', async () => {
    const pod = seedPod('once', 'echo hello');
    const uid = pod.metadata.uid as string;
    expect(await logs.readIfEnded(stored('once'))).toBe(false);
    await runPod(emu, NS, 'once');
    expect(await logs.readIfEnded(stored('once'))).toBe(true);
    expect(logs.logsOf([stored('once')]).get(uid)).toEqual({ text: 'hello\n' });
  });

  it('says plainly when the log is gone (404) or the kubelet cannot be reached', async () => {
    seedPod('gone', 'echo bye');
    await runPod(emu, NS, 'gone');
    const ended = stored('gone');
    emu.store.remove('/pods', NS, 'gone');
    expect(await logs.readIfEnded(ended)).toBe(true);
    expect(logs.logsOf([ended]).get(ended.metadata.uid)).toEqual({
      missing: expect.stringMatching(/^the log is no longer available \(404: pods "gone" not found\)$/),
    });

    seedPod('away', 'echo far');
    await runPod(emu, NS, 'away');
    emu.podLogFaults.set({ kind: 'unreachable' });
    const away = stored('away');
    // The kubelet may come back: not read, and said so if the run is recorded meanwhile.
    expect(await logs.readIfEnded(away)).toBe(false);
    expect(logs.logsOf([away]).get(away.metadata.uid)).toEqual({
      missing: expect.stringContaining('the log could not be read: Get "https://'),
    });
    // A kubelet that takes the request and never answers: the read gives up, to be tried again.
    emu.podLogFaults.set({ kind: 'hangs' });
    expect(await logs.readIfEnded(away)).toBe(false);
    expect(logs.logsOf([away]).get(away.metadata.uid)).toEqual({
      missing: expect.stringMatching(/^the log could not be read: .*(timeout|abort)/i),
    });
    logs.podGone(away.metadata.uid);
    expect(logs.logsOf([away]).get(away.metadata.uid)).toEqual({
      missing: 'the log is no longer available: the pod was deleted before it was read',
    });
  });
});
