import { KubeEmulator } from '../support/kube/emulator';
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

describe('transcript replay against the emulator', () => {
  for (const file of transcriptFiles()) {
    if (only && !file.startsWith(only)) continue;
    test(
      file,
      async () => {
        const emu = await KubeEmulator.start();
        try {
          if (!file.startsWith('01')) await installCrd(emu);
          const plan: ReplayPlan = { refused: {}, skipped: {}, ...PLANS[file] };
          const results = await replay(loadTranscript(file), emu, plan);
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
