import { ClusterClient, LIST_PAGE_SIZE } from '../../src/kube/clusterClient';
import { KubeEmulator } from '../support/kube/emulator';
import { kubeConfigFor } from '../support/kube/kubeconfig';
import { createMemoryLogger } from '../support/memoryLogger';

const NS = 'batch-heavy';

/**
 * The lists behind the controller's caches (CronJobs, Jobs, pods) are read in pages of
 * LIST_PAGE_SIZE, each page's `continue` token asking for the next, as client-go's informers list
 * (the emulator's pagination is as recorded in 02-cr-create-validate-list): a namespace with
 * thousands of Jobs never arrives as one response. The list still holds every object, with the
 * resourceVersion of its snapshot, from which its watch starts.
 */
describe('a list of Jobs, in pages', () => {
  let emu: KubeEmulator;
  let cluster: ClusterClient;

  beforeAll(async () => {
    emu = await KubeEmulator.start();
    emu.seed(emu.typeByName('namespaces'), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    cluster = new ClusterClient(kubeConfigFor(emu), createMemoryLogger());
    for (let i = 0; i < 2 * LIST_PAGE_SIZE + 1; i++) {
      emu.seed(emu.typeByName('batch/jobs'), {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: `job-${i}`, namespace: NS, labels: { team: i % 2 === 0 ? 'even' : 'odd' } },
        spec: {
          suspend: true,
          template: {
            spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox:1.36' }] },
          },
        },
      });
    }
  });
  afterAll(() => emu.stop());

  it('reads every Job of the namespace in three requests, with one snapshot’s resourceVersion', async () => {
    emu.resetRequestCounts();
    const listed = await cluster.listJobs(NS, '');
    expect(emu.requestCounts()['list jobs']).toBe(3);
    expect(listed.items).toHaveLength(2 * LIST_PAGE_SIZE + 1);
    expect(new Set(listed.items.map((job) => job.metadata?.name)).size).toBe(2 * LIST_PAGE_SIZE + 1);
    expect(listed.metadata?._continue).toBeUndefined();
    // The snapshot's: a Job written after the list is newer than it.
    const later = emu.seed(emu.typeByName('batch/jobs'), {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'after-the-list', namespace: NS },
      spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'x' }] } } },
    });
    expect(Number(later.metadata.resourceVersion)).toBeGreaterThan(Number(listed.metadata?.resourceVersion));
  });

  it('pages a list with a label selector, and across namespaces', async () => {
    emu.resetRequestCounts();
    const odd = await cluster.listJobs(NS, 'team=odd');
    expect(odd.items).toHaveLength(LIST_PAGE_SIZE);
    expect(emu.requestCounts()['list jobs']).toBe(1);
    const everywhere = await cluster.listJobs(null, '');
    expect(everywhere.items.length).toBeGreaterThan(2 * LIST_PAGE_SIZE + 1);
    expect(emu.requestCounts()['list jobs']).toBe(1 + 3);
  });

  it('pages a list of metadata alone (as=PartialObjectMetadataList) as any list', async () => {
    const page = async (query: string) => {
      const response = await fetch(`${emu.url}/apis/batch/v1/namespaces/${NS}/jobs?${query}`, {
        headers: {
          authorization: `Bearer ${emu.adminToken}`,
          accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json',
        },
      });
      expect(response.status).toBe(200);
      return (await response.json()) as { kind: string; metadata: Record<string, unknown>; items: unknown[] };
    };
    const first = await page(`limit=${LIST_PAGE_SIZE}`);
    expect(first.kind).toBe('PartialObjectMetadataList');
    expect(first.items).toHaveLength(LIST_PAGE_SIZE);
    expect(first.metadata).toEqual({
      continue: expect.any(String),
      remainingItemCount: expect.any(Number),
      resourceVersion: expect.any(String),
    });
    const second = await page(`limit=${LIST_PAGE_SIZE}&continue=${first.metadata.continue as string}`);
    expect(second.items).toHaveLength(LIST_PAGE_SIZE);
    expect(second.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
    // Unpaged, its metadata is the resourceVersion alone, as recorded (02-cr #42).
    expect(Object.keys((await page('labelSelector=team=odd')).metadata)).toEqual(['resourceVersion']);
  });
});
