#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { readEnvironment } from './config/environment';
import { readJobsFile } from './config/jobsFile';
import { assertSafeListenAddress } from './config/listenAddress';
import { MANIFESTS_USAGE, runManifestsCommand } from './controller/crds/manifestsCommand';
import { createLogger } from './logging/logger';
import { startService } from './service';
import { openDatabase } from './store/open';

const USAGE = `usage: crondeck serve [--config jobs.yaml] [--port N] [--host ADDR] [--insecure]
       crondeck manifests [--out DIR]

  serve     run the service: REST API, metrics, dashboard and the in-process scheduler
            (an embedded database in ./data unless DATABASE_URL is set)

Options of serve:
  --config FILE   jobs to declare at start (YAML or JSON with a "jobs" list)
  --port N        port to listen on (default: PORT or 7433)
  --host ADDR     address to listen on (default: HOST or 127.0.0.1)
  --insecure      allow a non-loopback address without SERVICE_API_TOKEN

${MANIFESTS_USAGE}`;

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
  assertSafeListenAddress(env.host, env.apiToken, values.insecure ?? false);
  // Read the config file before opening anything: a bad entry must not start half a service.
  const declaredJobs = values.config ? await readJobsFile(values.config) : [];
  const db = await openDatabase(env);
  const service = await startService({ env, db, logger, declaredJobs });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.info('shutting down', { signal });
      service.stop().then(
        () => process.exit(0),
        (error) => {
          logger.error('shutdown failed', { err: error });
          process.exit(1);
        },
      );
    });
  }
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return serve(rest);
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
