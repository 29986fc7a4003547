import { KubeEmulator } from '../support/kube/emulator';
import { ReplayClock } from './replay/clock';
import { PLANS } from './replay/plans';
import { replay, type ReplayPlan } from './replay/replay';
import { loadTranscript, transcriptFiles } from './replay/transcript';

const crdBody = loadTranscript('01-crd-lifecycle.json').exchanges.find((e) => e.i === 4)!.request.body;

/** Later files use the CRD that 01 creates (README "How to use" 1). */
async function installCrd(emu: KubeEmulator): Promise<void> {
  const res = await fetch(`${emu.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${emu.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(crdBody),
  });
  expect(res.status).toBe(201);
  await new Promise((r) => setImmediate(r));
}

const only = process.env.REPLAY_ONLY;

/**
 * How many exchanges per file are not compared (refused loudly + skipped as dependent). Growing
 * the inventory in plans.ts without updating this pin fails the suite.
 */
const NOT_COMPARED: Record<string, { refused: number; skipped: number }> = {
  '02-cr-create-validate-list.json': { refused: 1, skipped: 0 },
};

test('the inventory of exchanges the emulator does not serve is pinned', () => {
  const actual: typeof NOT_COMPARED = {};
  for (const [file, plan] of Object.entries(PLANS)) {
    const refused = Object.keys(plan.refused ?? {}).length;
    const skipped = Object.keys(plan.skipped ?? {}).length;
    if (refused || skipped) actual[file] = { refused, skipped };
  }
  expect(actual).toEqual(NOT_COMPARED);
});

describe('transcript replay against the emulator', () => {
  for (const file of transcriptFiles()) {
    if (only && !file.startsWith(only)) continue;
    test(
      file,
      async () => {
        const plan: ReplayPlan = { refused: {}, skipped: {}, ...PLANS[file] };
        const clock = new ReplayClock({ held: plan.oneSecond !== undefined });
        const emu = await KubeEmulator.start({ now: clock.now });
        try {
          if (!file.startsWith('01')) await installCrd(emu);
          const results = await replay(loadTranscript(file), emu, plan, clock);
          const failures = results.filter((r) => r.outcome === 'mismatch' || r.outcome === 'not-refused');
          if (process.env.REPLAY_VERBOSE) {
            for (const r of results)
              console.log(`${file} #${r.i} ${r.outcome}${r.detail ? `\n${r.detail}` : ''}`);
          }
          expect(
            failures.map(
              (f) =>
                `#${f.i} ${f.outcome}: ${(f.detail ?? '')
                  .split('\n')
                  .map((l) => l.slice(0, 400))
                  .join('\n')}`,
            ),
          ).toEqual([]);
        } finally {
          await emu.stop();
        }
      },
      60000,
    );
  }
});

/**
 * The files replayed in one second answer the same however slow the machine: here the wall clock
 * moves on more than a second at every read, so every exchange would fall in a second of its own.
 */
describe('a held replay crossing second boundaries', () => {
  for (const [file, p] of Object.entries(PLANS)) {
    if (p.oneSecond === undefined || (only && !file.startsWith(only))) continue;
    test(
      file,
      async () => {
        const plan: ReplayPlan = { refused: {}, skipped: {}, ...p };
        let reads = 0;
        const clock = new ReplayClock({ held: true, wallNow: () => Date.now() + reads++ * 1100 });
        const emu = await KubeEmulator.start({ now: clock.now });
        try {
          await installCrd(emu);
          const results = await replay(loadTranscript(file), emu, plan, clock);
          expect(results.filter((r) => r.outcome !== 'match')).toEqual([]);
        } finally {
          await emu.stop();
        }
      },
      60000,
    );
  }
});
