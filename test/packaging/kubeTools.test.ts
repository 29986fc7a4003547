/** scripts/kube-tools.sh: helm v4 and kubectl v1.34, fetched once, then reused without the network. */
import { execFileSync, spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, kubeTools } from './support';

const script = path.join(REPO_ROOT, 'scripts', 'kube-tools.sh');

test('provides runnable helm v4 and kubectl v1.34, and a second run reuses them offline', () => {
  const { helm, kubectl } = kubeTools();
  expect(execFileSync(helm, ['version', '--short'], { encoding: 'utf8' })).toMatch(/^v4\./);
  expect(execFileSync(kubectl, ['version', '--client'], { encoding: 'utf8' })).toMatch(
    /Client Version: v1\.34\./,
  );
  const before = statSync(helm).mtimeMs;
  // A registry that cannot answer: a complete cache must not need it.
  const again = spawnSync('bash', [script], {
    encoding: 'utf8',
    env: { ...process.env, npm_config_registry: 'http://127.0.0.1:9/', npm_config_offline: 'true' },
  });
  expect(again.stderr).toBe('');
  expect(again.status).toBe(0);
  expect(path.join(again.stdout.trim(), 'helm')).toBe(helm);
  expect(statSync(helm).mtimeMs).toBe(before);
}, 120_000);
