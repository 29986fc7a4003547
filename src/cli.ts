#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { readEnvironment } from './config/environment';
import { readJobsFile } from './config/jobsFile';
import { assertSafeListenAddress } from './config/listenAddress';
import { readControllerEnvironment } from './config/controllerEnvironment';
import { MANIFESTS_USAGE, runManifestsCommand } from './controller/crds/manifestsCommand';
import { type PodRunIo, readRunnerSettings, runInPod } from './runner/podRunner';
import { RUNNER_ENV } from './runner/runnerEnvironment';
import { SUPERVISE_DIR } from './runner/superviseFiles';
import { supervise } from './runner/supervisor';
import { connectToServer } from './store/database';
import { createLogger } from './logging/logger';

/**
 * The parts that talk to a cluster load @kubernetes/client-node, whose generated API costs some
 * 60 MB of memory: only the commands that need them load them (`serve` in Kubernetes mode and
 * `controller`), so that `serve` on one machine and `run` in every job's pod stay small. Of that,
 * its API classes are left unloaded where Node allows it (kube/leanClientNode.ts).
 */
const clusterParts = () => {
  (
    require('./kube/leanClientNode') as typeof import('./kube/leanClientNode')
  ).leaveClientNodeApiClassesUnloaded();
  return {
    ...(require('./controller/runtime/kubeConfig') as typeof import('./controller/runtime/kubeConfig')),
    ...(require('./controller/startController') as typeof import('./controller/startController')),
  };
};

/**
 * The service itself (its HTTP API, dashboard, mailbox and the embedded database's module): only
 * `serve` loads it. The controller, which never serves them, held some 15 MB more with them.
 */
const serviceParts = () => ({
  ...(require('./service') as typeof import('./service')),
  ...(require('./store/open') as typeof import('./store/open')),
});

const SERVE_USAGE = `usage: crondeck serve [--config jobs.yaml] [--port N] [--host ADDR] [--insecure]

Runs the service: REST API, metrics, dashboard and the in-process scheduler (an embedded database
in ./data unless DATABASE_URL is set).

  --config FILE   jobs to declare at start (YAML or JSON with a "jobs" list)
  --port N        port to listen on (default: PORT or 7433)
  --host ADDR     address to listen on (default: HOST or 127.0.0.1; :: for every address, IPv6
                  and IPv4, or IPv4 alone where the kernel has no IPv6)
  --insecure      allow a non-loopback address without SERVICE_API_TOKEN`;

const CONTROLLER_USAGE = `usage: crondeck controller

Reconciles ScheduledJob and AlertConfig resources into CronJobs, in a cluster. DATABASE_URL,
SERVICE_REPORT_SECRET and CRONDECK_REPORT_URL are required.`;

const RUN_USAGE = `usage: crondeck run [--supervise]

In a job's pod: runs its command with timeout and retries, and reports each attempt to the service
(settings from the environment the CronJob sets).

  --supervise     as a sidecar, running each attempt in the job's own image`;

/** Each command's usage, printed by `crondeck <command> --help` and with a bad option. */
const COMMAND_USAGE = {
  serve: SERVE_USAGE,
  controller: CONTROLLER_USAGE,
  run: RUN_USAGE,
  manifests: MANIFESTS_USAGE,
};

const USAGE = `usage: crondeck serve [--config jobs.yaml] [--port N] [--host ADDR] [--insecure]
       crondeck controller
       crondeck run [--supervise]
       crondeck manifests [--root DIR | --out DIR]

  serve       run the service: REST API, metrics, dashboard and the in-process scheduler
  controller  reconcile ScheduledJob and AlertConfig resources into CronJobs (in a cluster)
  run         in a job's pod: run its command with timeout and retries, report each attempt
  manifests   write the CustomResourceDefinitions as YAML

crondeck <command> --help shows a command's options.`;

/** A command line a command cannot take: the message comes with the command's usage. */
class UsageError extends Error {}

async function serve(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      config: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      insecure: { type: 'boolean', default: false },
    },
  });
  const env = readEnvironment(process.env, { port: values.port, host: values.host });
  const logger = createLogger({ level: env.logLevel });
  // With SERVICE_AUTH=kubernetes the cluster authenticates every request, as --insecure says.
  await assertSafeListenAddress(
    env.host,
    env.apiToken,
    (values.insecure ?? false) || env.auth === 'kubernetes',
  );
  // Read the config file before opening anything: a bad entry must not start half a service.
  const declaredJobs = values.config ? await readJobsFile(values.config) : [];
  const { openDatabase, startService } = serviceParts();
  const db = await openDatabase(env, logger);
  const kubeConfig = env.runtime === 'kubernetes' ? clusterParts().loadKubeConfig() : undefined;
  const service = await startService({ env, db, logger, declaredJobs, kubeConfig });

  // SIGTERM (Kubernetes, docker stop) drains for SERVICE_SHUTDOWN_DRAIN_SECONDS first; Ctrl-C
  // (SIGINT) never does, and ends a drain under way. Each signal is handled once: the second of a
  // kind ends the process as it would have without a handler.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      const drainSeconds = signal === 'SIGTERM' ? env.shutdownDrainSeconds : 0;
      logger.info('shutting down', { signal, drainSeconds });
      service.stop({ drainSeconds }).then(
        () => process.exit(0),
        (error) => {
          logger.error('shutdown failed', { err: error });
          process.exit(1);
        },
      );
    });
  }
}

/** `crondeck controller`: until SIGTERM; a replica that loses the Lease waits to win it again. */
async function controller(args: string[]): Promise<void> {
  if (args.length > 0) throw new UsageError(`crondeck controller takes no arguments, got ${args.join(' ')}`);
  const env = readEnvironment(process.env);
  const controllerEnv = readControllerEnvironment(process.env);
  const logger = createLogger({ level: env.logLevel });
  const { startController, loadKubeConfig } = clusterParts();
  const running = await startController({
    env,
    controllerEnv,
    db: connectToServer(env.databaseUrl ?? ''),
    kubeConfig: loadKubeConfig(),
    logger,
  });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.info('shutting down', { signal });
      running.stop().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
}

/**
 * `crondeck run`: the pod's exit code is the run's outcome. `crondeck run --supervise`: the runner
 * as a native sidecar, running each attempt in the job container (spec.image).
 */
async function run(args: string[]): Promise<void> {
  const supervised = args.length === 1 && args[0] === '--supervise';
  if (args.length > 0 && !supervised) {
    throw new UsageError(`crondeck run takes no arguments but --supervise, got ${args.join(' ')}`);
  }
  const settings = readRunnerSettings(process.env);
  const stop = new AbortController();
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => stop.abort());
  const io: PodRunIo = {
    logger: createLogger({ level: 'warn' }),
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    signal: stop.signal,
    env: process.env,
  };
  if (supervised) {
    await supervise(settings, { dir: process.env[RUNNER_ENV.superviseDir] || SUPERVISE_DIR }, io);
    return;
  }
  process.exitCode = await runInPod(settings, io);
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  const usage = command && Object.hasOwn(COMMAND_USAGE, command) ? COMMAND_USAGE[command as Command] : null;
  if (usage && rest.some((arg) => arg === '--help' || arg === '-h')) {
    process.stdout.write(usage + '\n');
    return;
  }
  try {
    await runCommandOf(command, rest);
  } catch (error) {
    if (usage && isUsageError(error)) {
      throw new Error(`${(error as Error).message}\n${usage}`, { cause: error });
    }
    throw error;
  }
}

type Command = keyof typeof COMMAND_USAGE;

/** A bad command line: one the command refused, or one that parseArgs could not read. */
function isUsageError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return error instanceof UsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_'));
}

async function runCommandOf(command: string | undefined, rest: string[]): Promise<void> {
  switch (command) {
    case 'serve':
      return serve(rest);
    case 'controller':
      return controller(rest);
    case 'run':
      return run(rest);
    case 'manifests':
      return runManifestsCommand(rest, (text) => process.stdout.write(text));
    case undefined:
    case '-h':
    case '--help':
    case 'help':
      process.stdout.write(USAGE + '\n');
      return;
    default:
      throw new Error(`unknown command "${command}"\n${USAGE}`);
  }
}

main(process.argv.slice(2)).catch((error: Error) => {
  process.stderr.write(`crondeck: ${error.message}\n`);
  process.exit(1);
});
