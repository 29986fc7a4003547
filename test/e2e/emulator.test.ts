import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCertificate } from '../alerts/support/smtp';
import { KubeEmulator } from '../support/kube/emulator';
import { writeKubeconfigFile } from '../support/kube/kubeconfig';
import { playControllerManager } from './emulatedControllers';
import type { E2eTarget } from './harness';
import { describeE2e } from './suite';

const MINUTE = 60_000;

/**
 * The e2e suite of `npm run test:e2e`, run in `npm test` against the emulator so that it cannot
 * rot: the emulator is a cluster with no node (the suite plays the kubelet through the API), the
 * chart installed on it with the real helm, its
 * CronJob and Job controllers are played by the harness, and its clock jumps to the next minute
 * boundary when the suite waits for a scheduled fire, instead of waiting up to a minute.
 */
async function emulatedCluster(): Promise<E2eTarget> {
  let offsetMs = 0;
  // Over TLS, as a cluster serves: helm sends a kubeconfig's token over TLS only.
  const tls = generateCertificate();
  const emu = await KubeEmulator.start({
    tls,
    bookmarkLeadMs: 200,
    now: () => new Date(Date.now() + offsetMs),
  });
  const stopControllers = playControllerManager(emu);
  const dir = mkdtempSync(join(tmpdir(), 'crondeck-e2e-'));
  const kubeconfig = join(dir, 'kubeconfig');
  writeKubeconfigFile(kubeconfig, { server: emu.url, token: emu.adminToken, caCert: tls.cert });
  return {
    kubeconfig,
    real: false,
    hastenScheduledFire() {
      const now = Date.now() + offsetMs;
      offsetMs += MINUTE - (now % MINUTE) + 50;
    },
    async stop() {
      stopControllers();
      await emu.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describeE2e('the e2e suite against the emulator', emulatedCluster);
