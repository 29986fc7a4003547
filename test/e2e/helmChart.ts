import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

const ROOT = resolve(__dirname, '../..');
const run = promisify(execFile);
const RELEASE = 'crondeck-e2e';

/** The chart's ServiceAccounts, named here so that the suite can speak as them. */
export const SERVICE_ACCOUNTS = { api: `${RELEASE}-api`, controller: `${RELEASE}-controller` };

/**
 * The chart, installed with helm (scripts/kube-tools.sh) and its defaults (server-side apply,
 * OpenAPI validation), brings the CRDs, RBAC and Secrets; its API and controller Deployments are
 * scaled to zero because the suite runs both on this machine, where it can stop them and read what
 * they say, as the chart's ServiceAccounts. No bundled PostgreSQL: the suite brings its own database.
 */
export async function installChart(
  kubeconfig: string,
  namespace: string,
  auth: 'kubernetes' | 'token',
): Promise<{ uninstall: () => Promise<unknown> }> {
  const { stdout } = await run('bash', [resolve(ROOT, 'scripts/kube-tools.sh')], { timeout: 300_000 });
  const helm = resolve(stdout.trim(), 'helm');
  const common = ['--kubeconfig', kubeconfig, '--namespace', namespace];
  try {
    await run(
      helm,
      [
        'upgrade',
        '--install',
        RELEASE,
        resolve(ROOT, 'charts/crondeck'),
        ...common,
        '--set',
        'api.replicas=0,controller.replicas=0,api.podDisruptionBudget.enabled=false',
        '--set',
        'postgresql.enabled=false,database.existingSecret=crondeck-e2e-database',
        '--set',
        `serviceAccount.api.name=${SERVICE_ACCOUNTS.api},serviceAccount.controller.name=${SERVICE_ACCOUNTS.controller}`,
        '--set',
        `auth.mode=${auth}`,
      ],
      { timeout: 300_000 },
    );
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`helm install failed: ${stderr || (error as Error).message}`, { cause: error });
  }
  return { uninstall: () => run(helm, ['uninstall', RELEASE, ...common], { timeout: 120_000 }) };
}
