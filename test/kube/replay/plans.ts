import type { ReplayPlan } from './replay';

type Body = Record<string, unknown>;

/** `bodyFiltered` exchanges: keep only the entry for the example group on both sides. */
const onlyExampleGroup = (key: 'groups' | 'items') => (body: unknown) => {
  const b = body as Body;
  const list = (b[key] as Body[] | undefined) ?? [];
  return {
    ...b,
    [key]: list.filter((g) => ((g.metadata as Body | undefined)?.name ?? g.name) === 'example.crondeck.dev'),
  };
};

/**
 * What the replay does not compare, per transcript file, and why. `refused` exchanges are still
 * sent and must get the emulator's 501 "not emulated: …"; `skipped` ones depend on a refused one.
 * This list is the visible, reviewed inventory of what the emulator does not do.
 */
export const PLANS: Record<string, Partial<ReplayPlan>> = {
  '01-crd-lifecycle.json': {
    refused: { 11: 'OpenAPI v3 documents are not served' },
    filter: { 9: onlyExampleGroup('groups'), 10: onlyExampleGroup('items') },
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
};
