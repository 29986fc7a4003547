import type { KubeEmulator } from '../../support/kube/emulator';
import type { ReplayPlan } from './replay';

type Body = Record<string, unknown>;

const nameOf = (g: Body) => ((g.metadata as Body | undefined)?.name ?? g.name) as string;

/** Keeps the entries of `key` whose name passes `keep`. */
const filterList = (key: string, keep: (name: string) => boolean) => (body: unknown) => {
  const b = body as Body;
  return { ...b, [key]: ((b[key] as Body[] | undefined) ?? []).filter((g) => keep(nameOf(g))) };
};

/** `bodyFiltered` exchanges of 01: the recorder kept only the example group. */
const onlyExampleGroup = (key: 'groups' | 'items') => filterList(key, (n) => n === 'example.crondeck.dev');

/**
 * Discovery lists what the real server serves; the emulator lists what it serves. Compare the
 * entries the emulator has (exactly), and require every one of them to exist in the recording.
 */
const sameEntriesAsEmulator = (key: 'groups' | 'resources') => (recorded: unknown, mine: unknown) => {
  const served = new Set(((mine as Body)[key] as Body[]).map(nameOf));
  return filterList(key, (n) => served.has(n))(recorded);
};

/** The metadata of the (one) pod a Job's controller made, to bind its generated name. */
function podOfJob(emu: KubeEmulator, namespace: string, job: string): { name: string; generateName: string } {
  const pod = emu.objects('pods', namespace).find((p) => p.metadata.labels?.['batch.kubernetes.io/job-name'] === job);
  if (!pod) throw new Error(`no pod of Job ${namespace}/${job}`);
  return pod.metadata;
}

/**
 * What the replay does not compare, per transcript file, and why. `refused` exchanges are still
 * sent and must get the emulator's 501 "not emulated: …"; `skipped` ones depend on a refused one.
 * This list is the visible, reviewed inventory of what the emulator does not do.
 */
export const PLANS: Record<string, Partial<ReplayPlan>> = {
  '01-crd-lifecycle.json': {
    refused: { 11: 'OpenAPI v3 documents are not served' },
    filterBoth: { 9: onlyExampleGroup('groups'), 10: onlyExampleGroup('items') },
  },
  '02-cr-create-validate-list.json': {
    refused: { 42: 'server-side Table output (printer columns) is not rendered' },
  },
  '04-patches.json': {
    refused: {
      8: 'fieldValidation=Strict on a merge patch: the real 422 quotes the patched object with managedFields, which the emulator does not keep',
      ...Object.fromEntries(
        [21, 22, 23, 24, 25, 26, 28, 29, 30, 31, 32, 33].map((i) => [i, 'server-side apply']),
      ),
    },
    skipped: {
      27: 'a merge patch on the object that server-side apply (#21) would have created',
      34: 'reads the object that server-side apply (#21–#33) would have created',
    },
  },
  '06-watch.json': {
    // The recording's note: etcd was compacted between #31 and #32.
    after: { 31: (emu) => emu.compact() },
  },
  '10-lease.json': {
    refused: Object.fromEntries(
      [10, 11, 12, 14].map((i) => [
        i,
        'a bad MicroTime inside a merge patch: the real 422 quotes the patched object with managedFields',
      ]),
    ),
  },
  '16-discovery.json': {
    filter: {
      3: sameEntriesAsEmulator('groups'),
      ...Object.fromEntries(
        [4, 5, 6, 7, 8, 9, 10, 11, 12].map((i) => [i, sameEntriesAsEmulator('resources')]),
      ),
    },
  },
  '12-auth.json': {
    refused: Object.fromEntries(
      [8, 9, 10, 11, 12, 13, 28, 29, 30, 31, 32].map((i) => [
        i,
        'TokenReview, SubjectAccessReview and the self-reviews are listed in discovery but not emulated',
      ]),
    ),
    auth: (e, emu) => {
      if (e.auth === 'Bearer not-a-token') return 'Bearer not-a-token';
      if (e.auth?.startsWith('none')) return undefined;
      const sa = /ServiceAccount ([^/]+)\/(\S+)/.exec(e.auth ?? '');
      const user = sa && `system:serviceaccount:${sa[1]}:${sa[2]}`;
      const token = [...emu.tokens.entries()].find(([, u]) => u.name === user)?.[0];
      if (!token) throw new Error(`no token for ${e.auth}`);
      return `Bearer ${token}`;
    },
  },
  '08-cronjob.json': {
    skipped: Object.fromEntries(
      Array.from({ length: 21 }, (_, k) => k + 16).map((i) => [
        i,
        'needs the kube-controller-manager (CronJob and Job controllers firing at the recorded minute, pods with OpenShift admission); the plays are tested in controllers.test.ts',
      ]),
    ),
  },
  '09-job-pod.json': {
    after: {
      // The Job controller's first sync: the pod and status.active (09 #3).
      2: (emu) => void emu.syncJob('kr-i', 'ok'),
      7: (emu) => void emu.syncJob('kr-i', 'ok'),
      9: (emu) => void emu.syncJob('kr-i', 'ok'),
      13: (emu, ctx) => {
        emu.syncJob('kr-i', 'fail');
        ctx.bindGeneratedName('<sfx:3>', podOfJob(emu, 'kr-i', 'fail'));
      },
      16: (emu) => void emu.syncJob('kr-i', 'fail'),
      19: (emu, ctx) => {
        emu.syncJob('kr-i', 'deadline');
        ctx.bindGeneratedName('<sfx:5>', podOfJob(emu, 'kr-i', 'deadline'));
      },
    },
    before: {
      20: (emu, ctx) => {
        // activeDeadlineSeconds 5 passes while the recorder polls.
        ctx.clock.advanceTo(new Date(ctx.clock.now().getTime() + 6000));
        emu.syncJob('kr-i', 'deadline');
      },
    },
  },
};
