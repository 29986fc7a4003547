import { API_AUDIENCE } from '../../support/kube/auth';
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

/** 01 #11's `bodyFiltered`: the OpenAPI v3 index reduced to the example group, its hash replaced. */
const onlyExampleOpenApiDocument = (body: unknown) => {
  const key = 'apis/example.crondeck.dev/v1alpha1';
  const entry = ((body as Body).paths as Record<string, { serverRelativeURL: string }> | undefined)?.[key];
  return {
    paths: entry
      ? { [key]: { serverRelativeURL: entry.serverRelativeURL.replace(/hash=\w+/, 'hash=<hash>') } }
      : {},
  };
};

/**
 * Discovery lists what the real server serves; the emulator lists what it serves. Compare the
 * entries the emulator has (exactly), and require every one of them to exist in the recording.
 */
const sameEntriesAsEmulator = (key: 'groups' | 'resources') => (recorded: unknown, mine: unknown) => {
  const served = new Set(((mine as Body)[key] as Body[]).map(nameOf));
  return filterList(key, (n) => served.has(n))(recorded);
};

/** The token a ServiceAccount was given for the API server's own audience (12 #4). */
function serviceAccountToken(emu: KubeEmulator, user: string): string {
  const token = [...emu.serviceAccountTokens.issued.entries()].find(
    ([, t]) => t.subject === user && t.audiences.includes(API_AUDIENCE),
  )?.[0];
  if (!token) throw new Error(`no token for ${user}`);
  return token;
}

/** A SelfSubjectRulesReview's rule lists in one canonical order, to compare them as sets. */
function rulesAsSets(body: unknown): unknown {
  const b = body as { status?: Body };
  if (!b.status) return body;
  const sorted = (rules: unknown) =>
    [...((rules as Body[] | undefined) ?? [])].sort((x, y) =>
      JSON.stringify(x).localeCompare(JSON.stringify(y)),
    );
  return {
    ...b,
    status: {
      ...b.status,
      resourceRules: sorted(b.status.resourceRules),
      nonResourceRules: sorted(b.status.nonResourceRules),
    },
  };
}

/**
 * OpenShift's bootstrap policy adds `system:openshift:public-info-viewer` (GET /.well-known,
 * /.well-known/*, bound to everyone): an OpenShift carry like the README's service CA source,
 * not Kubernetes, so the emulator has no such role and its rule is dropped from the recording.
 */
function withoutOpenShiftPublicInfoViewer(recorded: unknown): unknown {
  const b = recorded as { status: Body };
  const rules = (b.status.nonResourceRules as { nonResourceURLs: string[] }[]).filter(
    (r) => JSON.stringify(r.nonResourceURLs) !== JSON.stringify(['/.well-known', '/.well-known/*']),
  );
  return { ...b, status: { ...b.status, nonResourceRules: rules } };
}

/** The metadata of the (one) pod a Job's controller made, to bind its generated name. */
function podOfJob(emu: KubeEmulator, namespace: string, job: string): { name: string; generateName: string } {
  const pod = emu
    .objects('pods', namespace)
    .find((p) => p.metadata.labels?.['batch.kubernetes.io/job-name'] === job);
  if (!pod) throw new Error(`no pod of Job ${namespace}/${job}`);
  return pod.metadata;
}

/** The Job the CronJob controller started (08 #16), by its scheduled-timestamp annotation. */
function scheduledJob(emu: KubeEmulator): string {
  const job = emu
    .objects('jobs', 'kr-h')
    .find((j) => j.metadata.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp']);
  if (!job) throw new Error('the CronJob controller has started no Job');
  return job.metadata.name;
}

/** An EventList with the `count` of events for `reason` left out (timing-dependent, README). */
const withoutCountOf = (reason: string) => (body: unknown) => {
  const b = body as Body;
  const items = (b.items as Body[] | undefined)?.map((e) => {
    if (e.reason !== reason) return e;
    const { count: _count, ...rest } = e;
    return rest;
  });
  return { ...b, items };
};

/** The recorder's own `bodyFiltered` of 19 #19 and #112: Go pointer addresses → `0x<pointer>`. */
const withoutPointers = (body: unknown) =>
  JSON.parse(JSON.stringify(body).replace(/0x[0-9a-f]+/g, '0x<pointer>')) as unknown;

/** Now in RFC 3339 with `fraction` after the seconds and the zone (`Z` or an offset) as given. */
function nowWith(fraction: string, zone = 'Z', offsetHours = 0): string {
  const shifted = new Date(Date.now() + offsetHours * 3_600_000).toISOString();
  return `${shifted.slice(0, 19)}${fraction}${zone}`;
}

/**
 * What the replay does not compare, per transcript file, and why. `refused` exchanges are still
 * sent and must get the emulator's 501 "not emulated: …"; `skipped` ones depend on a refused one.
 * This list is the visible, reviewed inventory of what the emulator does not do.
 */
export const PLANS: Record<string, Partial<ReplayPlan>> = {
  '01-crd-lifecycle.json': {
    filterBoth: {
      9: onlyExampleGroup('groups'),
      10: onlyExampleGroup('items'),
      11: onlyExampleOpenApiDocument,
    },
  },
  '02-cr-create-validate-list.json': {
    refused: { 42: 'server-side Table output (printer columns) is not rendered' },
    managedFields: true,
  },
  // Files whose every managedFields entry the emulator writes as the real server did (the other
  // files' objects are also written by controllers the emulator plays without field managers).
  '03-concurrency.json': {
    managedFields: true,
    oneSecond: "#8's no-op PUT sends back the managedFields time #6 stored and keeps the resourceVersion",
  },
  '04-patches.json': {
    managedFields: true,
    oneSecond: '#24 lists crondeck-cli (applied at #24) before crondeck-controller (applied at #22)',
  },
  '05-status-subresource.json': {
    managedFields: true,
    oneSecond: '#9 changes the main resource after #6 changed status, and the main entry stays first',
  },
  '13-secrets.json': { managedFields: true },
  '14-dry-run-field-validation.json': { managedFields: true },
  '18-cr-validation.json': {
    before: {
      // The recorder read the CRD (unrecorded) to update it with its current resourceVersion.
      96: (emu, ctx) => {
        const crd = emu
          .objects('apiextensions.k8s.io/customresourcedefinitions')
          .find((c) => c.metadata.name === 'widgets.validate.crondeck.dev');
        if (!crd) throw new Error('the Widget CRD is missing');
        ctx.bindValue('<rv:33>', crd.metadata.resourceVersion);
      },
    },
  },
  '06-watch.json': {
    managedFields: true,
    // The recording's note: etcd was compacted between #31 and #32.
    after: { 31: (emu) => emu.compact() },
  },
  '10-lease.json': { managedFields: true },
  '16-discovery.json': {
    managedFields: true,
    filter: {
      3: sameEntriesAsEmulator('groups'),
      ...Object.fromEntries(
        [4, 5, 6, 7, 8, 9, 10, 11, 12].map((i) => [i, sameEntriesAsEmulator('resources')]),
      ),
    },
  },
  '12-auth.json': {
    // #32 lists rules in the order the authorizer met bindings, which the recording marks unordered.
    filterBoth: { 32: rulesAsSets },
    // …and the recorded server's OpenShift-only system:openshift:public-info-viewer rule.
    filter: { 32: withoutOpenShiftPublicInfoViewer },
    // `<secret>` in a TokenReview is the token #4 minted for the API server's audience.
    secret: (emu) => serviceAccountToken(emu, 'system:serviceaccount:kr-l:crondeck-controller'),
    auth: (e, emu) => {
      if (e.auth === 'Bearer not-a-token') return 'Bearer not-a-token';
      if (e.auth?.startsWith('none')) return undefined;
      const sa = /ServiceAccount ([^/]+)\/(\S+)/.exec(e.auth ?? '');
      if (!sa) throw new Error(`no token for ${e.auth}`);
      return `Bearer ${serviceAccountToken(emu, `system:serviceaccount:${sa[1]}:${sa[2]}`)}`;
    },
  },
  '08-cronjob.json': {
    whileOpen: {
      // #16 watches Jobs until the CronJob controller's first run at the next minute boundary.
      16: (emu, ctx) => {
        ctx.clock.advanceTo(ctx.clock.nextMinute(1));
        emu.syncCronJob('kr-h', 'hello');
      },
    },
    before: {
      // The recorder found the pod's name by listing the Job's pods (unrecorded).
      19: (emu, ctx) => ctx.bindGeneratedName('<sfx:1>', podOfJob(emu, 'kr-h', scheduledJob(emu))),
      // "After suspending, the recorder waited past the next minute boundary (+12 s)" (notes).
      33: (emu, ctx) => {
        ctx.clock.advanceTo(ctx.clock.nextMinute(12));
        emu.syncCronJob('kr-h', 'hello');
      },
    },
    after: {
      // The Job controller's answer to the new Job: its pod, status.active (#18).
      16: (emu) => void emu.syncJob('kr-h', scheduledJob(emu)),
      // The kubelet's Running (ready) and Succeeded; then the CronJob controller sees it done (#26).
      23: (emu) => void emu.syncJob('kr-h', scheduledJob(emu)),
      24: (emu) => {
        emu.syncJob('kr-h', scheduledJob(emu));
        emu.syncCronJob('kr-h', 'hello');
      },
      // kubectl's manual Job: the Job controller starts it, the CronJob controller notices it.
      30: (emu) => {
        emu.syncJob('kr-h', 'manual-1');
        emu.syncCronJob('kr-h', 'hello');
      },
    },
    protobuf: { 30: 'kubectl create job --from posted protobuf; the recorded answer has no JSON body' },
    // The recording's own mark: UnexpectedJob's count grows with every sync (about every 10 s).
    filterBoth: { 36: withoutCountOf('UnexpectedJob') },
  },
  '19-builtin-validation.json': {
    filterBoth: { 19: withoutPointers, 112: withoutPointers },
    // The steps say what the normalized times were; the messages show their tails (.000, 789).
    literals: {
      168: { '<time.fraction>': () => nowWith('.000') },
      169: { '<time.fraction>': () => nowWith('.123456789') },
      171: { '<microtime+offset>': () => nowWith('.123456', '+02:00', 2) },
    },
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
