import { BatchV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { NAMESPACE } from './cluster';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * A plain batch/v1 CronJob, as a Helm chart of other software or a GitOps repository writes it:
 * nothing of Crondeck in it. `command` runs in its one container.
 */
export function plainCronJob(
  name: string,
  options: {
    labels?: Record<string, string>;
    schedule?: string;
    command?: string;
    spec?: Obj;
    namespace?: string;
  } = {},
): Obj {
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name, namespace: options.namespace ?? NAMESPACE, labels: options.labels ?? {} },
    spec: {
      schedule: options.schedule ?? '0 3 * * *',
      timeZone: 'Europe/Berlin',
      jobTemplate: {
        spec: {
          backoffLimit: 0,
          template: {
            spec: {
              restartPolicy: 'Never',
              containers: [
                {
                  name: 'main',
                  image: 'busybox:1.36',
                  command: ['sh', '-c', options.command ?? 'echo hello'],
                },
              ],
            },
          },
        },
      },
      ...options.spec,
    },
  };
}

export async function createCronJob(kc: KubeConfig, body: Obj): Promise<Obj> {
  return (await kc
    .makeApiClient(BatchV1Api)
    .createNamespacedCronJob({ namespace: body.metadata?.namespace ?? NAMESPACE, body })) as unknown as Obj;
}

const WATCHES = {
  group: 'crondeck.dev',
  version: 'v1alpha1',
  plural: 'cronjobwatches',
  namespace: NAMESPACE,
};

export async function createCronJobWatch(kc: KubeConfig, name: string, spec: Obj): Promise<Obj> {
  return (await kc.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
    ...WATCHES,
    body: { apiVersion: 'crondeck.dev/v1alpha1', kind: 'CronJobWatch', metadata: { name }, spec },
  })) as Obj;
}

export async function deleteCronJobWatch(kc: KubeConfig, name: string): Promise<void> {
  await kc.makeApiClient(CustomObjectsApi).deleteNamespacedCustomObject({ ...WATCHES, name });
}
