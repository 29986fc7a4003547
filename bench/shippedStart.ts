import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT, type ServiceProcess, startServiceProcess } from './harness';

/** The chart's two workloads, each with its own `nodeOptions` in values.yaml. */
type Component = 'api' | 'controller';

/** How a crondeck process is started where users run it. */
export interface ShippedStart {
  /** The node binary: the bench's own, which `npm run bench` makes the image's (`imageNodeMajor`). */
  node: string;
  /** The flags the image's entrypoint gives node (`exec node FLAGS /app/dist/cli.js`). */
  nodeArgs: string[];
  /** The Dockerfile's runtime environment, with the chart's NODE_OPTIONS for the component. */
  env: Record<string, string>;
}

/**
 * A component as the image and the chart run it: the image's entrypoint runs `node [FLAGS]
 * dist/cli.js` with the environment of the Dockerfile's runtime stage (NODE_ENV and the like), and
 * the chart gives the container the component's `nodeOptions` as NODE_OPTIONS (a pod's variable
 * replaces an image's of the same name). Read from the files, so the bench follows them.
 * BENCH_API_NODE_OPTIONS and BENCH_CONTROLLER_NODE_OPTIONS replace the chart's values, to try others
 * before shipping them.
 */
export function shippedStart(component: Component): ShippedStart {
  const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const entrypoint = /exec node ((?:--\S+ )*)\/app\/dist\/cli\.js/.exec(dockerfile);
  if (!entrypoint) throw new Error('the Dockerfile has no `exec node [FLAGS] /app/dist/cli.js` entrypoint');
  const runtimeStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  const env: Record<string, string> = {};
  for (const line of runtimeStage.split('\n').filter((l) => l.startsWith('ENV '))) {
    for (const [, name, value] of line.slice(4).matchAll(/(\w+)=("[^"]*"|\S+)/g)) {
      // The bench gives each process a data directory and a home of its own.
      if (name !== 'HOME' && name !== 'SERVICE_DATA_DIR') env[name!] = value!.replace(/^"|"$/g, '');
    }
  }
  const values = parse(readFileSync(join(REPO_ROOT, 'charts', 'crondeck', 'values.yaml'), 'utf8')) as Record<
    Component,
    { nodeOptions?: string }
  >;
  const override =
    component === 'api' ? process.env.BENCH_API_NODE_OPTIONS : process.env.BENCH_CONTROLLER_NODE_OPTIONS;
  const nodeOptions = override ?? values[component].nodeOptions ?? env.NODE_OPTIONS ?? '';
  // Set even when empty: the bench's own NODE_OPTIONS must not reach the process.
  env.NODE_OPTIONS = nodeOptions;
  return {
    node: process.execPath,
    nodeArgs: entrypoint[1]!.split(' ').filter(Boolean),
    env,
  };
}

/**
 * The major version of the image's Node (the Dockerfile's `NODE_IMAGE`, `node:24-…`). The bench runs
 * every process of a measure on it, its own included: the ceilings and the in-process measures
 * compared with the service would otherwise run on another Node than the one users get (Express 5
 * answers about three times slower on Node 20 than on 24 here).
 */
export function imageNodeMajor(): number {
  const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
  const image = /^ARG NODE_IMAGE=node:(\d+)/m.exec(dockerfile);
  if (!image) throw new Error('the Dockerfile has no `ARG NODE_IMAGE=node:MAJOR…` line');
  return Number(image[1]);
}

/** For the reports: the Node version, the command line and the environment of a shipped start. */
export function describeShippedStart(component: Component, command: string): string {
  const start = shippedStart(component);
  const version = execFileSync(start.node, ['--version']).toString().trim();
  const variables = Object.entries(start.env).map(([name, value]) => `\`${name}=${value}\``);
  return (
    `Node ${version}, ` +
    `\`node ${[...start.nodeArgs, 'dist/cli.js', command].join(' ')}\` as the image's entrypoint runs it, ` +
    `${variables.join(', ')} (the Dockerfile's environment; NODE_OPTIONS: the chart's \`${component}.nodeOptions\`)`
  );
}

/**
 * `crondeck serve` as a process of its own, started as the image and the chart start the API
 * (`shippedStart('api')`); `env` and `nodeArgs` are added to theirs (a database, a probe).
 */
export function startShippedService(options: {
  databaseUrl: string;
  name: string;
  env?: Record<string, string>;
  nodeArgs?: string[];
}): Promise<ServiceProcess> {
  const shipped = shippedStart('api');
  return startServiceProcess({
    databaseUrl: options.databaseUrl,
    name: options.name,
    node: shipped.node,
    env: { ...shipped.env, ...options.env },
    nodeArgs: [...shipped.nodeArgs, ...(options.nodeArgs ?? [])],
  });
}
