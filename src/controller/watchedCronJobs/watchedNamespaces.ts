import type { KubernetesObject, ObjectCache, V1CronJob, V1Job, V1Pod } from '@kubernetes/client-node';
import {
  type InformerDeps,
  type NamespaceChanges,
  type NamespaceInformers,
  startNamespaceInformers,
} from './watchedInformers';

interface OpenNamespace {
  informers: NamespaceInformers;
  /** Whether its caches hold what exists (their first lists are in). */
  filled: boolean;
}

type Kind = 'cronJobs' | 'jobs' | 'pods';

/**
 * The CronJobs, Jobs and pods of the namespaces that hold a CronJobWatch, and of no other: a
 * cluster's other namespaces may hold tens of thousands of Jobs no one asked Crondeck to look at,
 * and a controller that watched them all would pay for each in memory whether or not anything is
 * watched. A namespace is opened when its first CronJobWatch comes and closed when its last goes
 * (as controller-runtime's cache does for a set of namespaces: one watch per kind and namespace).
 *
 * The three caches read as one each (`cronJobs`, `jobs`, `pods`), by namespace as the reconcilers
 * ask; a namespace not open reads as empty.
 */
export class WatchedNamespaces {
  private readonly open = new Map<string, OpenNamespace>();
  readonly cronJobs: ObjectCache<V1CronJob> = this.view('cronJobs');
  readonly jobs: ObjectCache<V1Job> = this.view('jobs');
  readonly pods: ObjectCache<V1Pod> = this.view('pods');

  constructor(
    private readonly deps: InformerDeps,
    private readonly changed: NamespaceChanges,
  ) {}

  /**
   * Opens the namespace's caches if they are not; answers whether they hold what exists. Until
   * they do, `filled` is called once they do (the work on the namespace waits for it).
   */
  ensureOpen(namespace: string, filled: () => void): boolean {
    const known = this.open.get(namespace);
    if (known) return known.filled;
    const changes = this.passedOnOnceFilled(() => opened.filled);
    const opened: OpenNamespace = {
      informers: startNamespaceInformers(this.deps, namespace, changes),
      filled: false,
    };
    this.open.set(namespace, opened);
    void opened.informers.synced.then(() => {
      // Closed meanwhile (its last watch went before the first lists were in): nothing to say.
      if (this.open.get(namespace) !== opened) return;
      opened.filled = true;
      filled();
    });
    return false;
  }

  isFilled(namespace: string): boolean {
    return this.open.get(namespace)?.filled === true;
  }

  /** Stops watching the namespace; its caches are dropped. */
  async close(namespace: string): Promise<void> {
    const closing = this.open.get(namespace);
    if (!closing) return;
    this.open.delete(namespace);
    await closing.informers.stop();
  }

  /** Resolves once the caches of every namespace open now hold what exists. */
  async synced(): Promise<void> {
    await Promise.all([...this.open.values()].map((opened) => opened.informers.synced));
  }

  async stop(): Promise<void> {
    await Promise.all([...this.open.keys()].map((namespace) => this.close(namespace)));
  }

  /**
   * The changes of a namespace's caches, passed on once they are filled. Their first lists would
   * otherwise ask for every CronJob and Job one by one, and each CronJob newly selected for the
   * whole namespace's pass again: the pass that follows the fill (`filled`) looks at all of it once.
   */
  private passedOnOnceFilled(filled: () => boolean): NamespaceChanges {
    const { cronJobChanged, jobChanged, podChanged } = this.changed;
    return {
      cronJobChanged: (namespace, name) => filled() && cronJobChanged(namespace, name),
      jobChanged: (job, event) => filled() && jobChanged(job, event),
      podChanged: (pod, event) => filled() && podChanged(pod, event),
    };
  }

  private view<T extends KubernetesObject>(kind: Kind): ObjectCache<T> {
    const cacheOf = (namespace: string) =>
      this.open.get(namespace)?.informers[kind] as ObjectCache<T> | undefined;
    return {
      get: (name, namespace) =>
        namespace === undefined ? undefined : cacheOf(namespace)?.get(name, namespace),
      list: (namespace) =>
        namespace === undefined
          ? [...this.open.keys()].flatMap((each) => cacheOf(each)?.list(each) ?? [])
          : (cacheOf(namespace)?.list(namespace) ?? []),
    };
  }
}
