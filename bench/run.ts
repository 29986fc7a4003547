/**
 * `npm run bench [-- SCENARIO...]`: starts a throwaway PostgreSQL 15 server, the service as a
 * separate process (`node dist/cli.js serve`, which migrates), runs the scenarios of
 * bench/scenarios/ against them and writes BENCHMARKS.md. Everything started is stopped at the
 * end, on failure and on Ctrl-C too.
 *
 * Scenarios run in the order below; a scenario whose module does not exist yet is skipped with a
 * note. Running a subset replaces only those scenarios' sections of BENCHMARKS.md.
 *
 * How it runs: the `bench` script builds the service (`npm run build`, into dist/), compiles bench/
 * with `tsc -p tsconfig.bench.json` into .bench/build/ (git-ignored), then runs
 * `node .bench/build/bench/run.js`. Scenarios that need service code in-process load it from dist/
 * (`fromBuild`), so they run exactly what the service process runs.
 *
 * Environment: BENCH_SECONDS (measured seconds per target, default 6), BENCH_WARMUP_SECONDS
 * (default 2), BENCH_ROUNDS (default 2), BENCH_CPU_PROF=1 (profile the service process: a
 * .cpuprofile in .bench/profiles/ when it stops; open it in Chrome DevTools).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import {
  type Bar,
  type BenchContext,
  createBenchContext,
  DEFAULT_CONNECTIONS,
  formatMegabytes,
  LOAD_SECONDS,
  REPO_ROOT,
  ROUNDS,
  type Scenario,
  startThrowawayPostgres,
  stopAll,
  WARMUP_SECONDS,
  WORK_DIR,
} from './harness';
import { describeShippedStart, imageNodeMajor, startShippedService } from './shippedStart';

const KNOWN_SCENARIOS = [
  'scheduler',
  'creates',
  'mailbox',
  'alerts',
  'operator',
  'memory',
  'slots',
  'watched',
];
const BENCHMARKS_FILE = join(REPO_ROOT, 'BENCHMARKS.md');

interface ScenarioOutcome {
  name: string;
  status: 'ran' | 'failed' | 'skipped';
  seconds: number;
  markdown: string;
  /** The scenario's detail sections, written to docs/benchmarks/NAME.md. */
  detailMarkdown: string;
  bars: Bar[];
  findings: string[];
  /** The machine's 1-minute load average when the scenario started and when it ended. */
  load: [number, number];
}

const cleanups: (() => Promise<void>)[] = [];

async function cleanUp(): Promise<void> {
  while (cleanups.length > 0) {
    const cleanup = cleanups.pop()!;
    await cleanup().catch((error: Error) => console.error(`bench: clean-up failed: ${error.message}`));
  }
}

async function main(args: string[]): Promise<number> {
  const selected = args.length > 0 ? args : KNOWN_SCENARIOS;
  for (const name of selected) {
    if (!/^[a-zA-Z0-9_-]+$/.test(name)) throw new Error(`not a scenario name: ${name}`);
  }
  const imageNode = imageNodeMajor();
  if (Number(process.versions.node.split('.')[0]) !== imageNode) {
    throw new Error(
      `the bench measures on the image's Node ${imageNode} and this is ${process.version}: run it with ` +
        '`npm run bench`, which puts that Node first on the PATH (scripts/node24.sh)',
    );
  }
  const started = new Date();

  console.log('bench: starting a throwaway PostgreSQL 15 server');
  const postgres = await startThrowawayPostgres();
  cleanups.push(() => postgres.stop());
  // Service and ceiling processes that a failed or interrupted scenario left running.
  cleanups.push(() => stopAll());

  console.log('bench: starting the service (node dist/cli.js serve, as the image and the chart start it)');
  const profileDir = join(WORK_DIR, 'profiles');
  if (process.env.BENCH_CPU_PROF === '1') mkdirSync(profileDir, { recursive: true });
  const service = await startShippedService({
    databaseUrl: postgres.databaseUrl,
    name: 'service',
    nodeArgs: process.env.BENCH_CPU_PROF === '1' ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
  });
  cleanups.push(() => service.stop());

  const ctx = createBenchContext({ databaseUrl: postgres.databaseUrl, serviceUrl: service.url });
  cleanups.push(() => ctx.close());

  const outcomes: ScenarioOutcome[] = [];
  for (const name of selected) {
    const scenario = loadScenario(name);
    if (!scenario) {
      console.log(`bench: ${name}: skipped (bench/scenarios/${name}.ts does not exist)`);
      outcomes.push({
        name,
        status: 'skipped',
        seconds: 0,
        markdown: `_Skipped: \`bench/scenarios/${name}.ts\` does not exist yet._`,
        detailMarkdown: '',
        bars: [],
        findings: [],
        load: [loadavg()[0]!, loadavg()[0]!],
      });
      continue;
    }
    console.log(`bench: ${name}`);
    const first = { sections: ctx.sections.length, bars: ctx.bars.length, findings: ctx.findings.length };
    const scenarioStart = performance.now();
    const loadAtStart = loadavg()[0]!;
    let failure: Error | undefined;
    try {
      await scenario(ctx);
    } catch (error) {
      failure = error as Error;
      console.error(`bench: ${name} failed: ${failure.stack ?? failure.message}`);
    }
    const seconds = (performance.now() - scenarioStart) / 1000;
    const reported = ctx.sections.slice(first.sections);
    const asMarkdown = (detail: boolean) =>
      reported
        .filter((section) => section.detail === detail)
        .map(({ section, markdown }) => `### ${section}\n\n${markdown.trim()}`);
    const sections = asMarkdown(false);
    if (failure) sections.push(`**The scenario failed:** \`${failure.message.replace(/`/g, "'")}\``);
    outcomes.push({
      name,
      status: failure ? 'failed' : 'ran',
      seconds,
      markdown: sections.join('\n\n'),
      detailMarkdown: asMarkdown(true).join('\n\n'),
      bars: ctx.bars.slice(first.bars),
      findings: ctx.findings.slice(first.findings),
      load: [loadAtStart, loadavg()[0]!],
    });
    console.log(`bench: ${name} ${failure ? 'failed' : 'done'} in ${seconds.toFixed(0)} s`);
  }

  const serviceRss = service.rssBytes();
  const environment = describeEnvironment(ctx, started, args, serviceRss);
  writeBenchmarks(await environment, outcomes);
  console.log(`bench: wrote ${BENCHMARKS_FILE}`);
  return outcomes.some((o) => o.status === 'failed') ? 1 : 0;
}

/** The scenario function of bench/scenarios/NAME.ts (compiled next to this file), if it exists. */
function loadScenario(name: string): Scenario | undefined {
  const source = join(REPO_ROOT, 'bench', 'scenarios', `${name}.ts`);
  const compiled = join(__dirname, 'scenarios', `${name}.js`);
  if (!existsSync(source) || !existsSync(compiled)) return undefined;
  const module = require(compiled) as Record<string, unknown>;
  const candidates = [module.run, module.scenario, module[`${name}Scenario`], module.default];
  const exported = Object.values(module).filter((value) => typeof value === 'function');
  const found = candidates.find((value) => typeof value === 'function') ?? exported[0];
  if (typeof found !== 'function') throw new Error(`${source} exports no run(ctx) function`);
  return found as Scenario;
}

interface RunEnvironment {
  date: string;
  command: string;
  machine: string;
  software: string;
  settings: string;
  /** How the service processes were started (as the image and the chart start them). */
  serviceStart: string;
  serviceRss: string;
}

async function describeEnvironment(
  ctx: BenchContext,
  started: Date,
  args: string[],
  serviceRss: number,
): Promise<RunEnvironment> {
  const cpu = cpus();
  const version = (await ctx.sql<{ server_version: string }>('SHOW server_version'))[0]?.server_version;
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT }).toString().trim();
    const dirty = execFileSync('git', ['status', '--porcelain'], { cwd: REPO_ROOT }).toString().trim();
    if (dirty) commit += ' (with uncommitted changes)';
  } catch {
    // Not a git checkout.
  }
  return {
    date: started.toISOString().replace(/\.\d+Z$/, 'Z'),
    command: `npm run bench${args.length ? ` -- ${args.join(' ')}` : ''}`,
    machine: `${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${formatMegabytes(totalmem())} RAM, ${process.platform} ${process.arch}`,
    software: `Node ${process.version}, PostgreSQL ${version} (throwaway cluster, fsync off), commit ${commit}`,
    settings:
      `autocannon, ${DEFAULT_CONNECTIONS} connections; each target gets a ${WARMUP_SECONDS} s warm-up, then ` +
      `${LOAD_SECONDS} s measured (against the ceilings: in ${ROUNDS} alternating rounds)`,
    serviceStart: describeShippedStart('api', 'serve'),
    serviceRss: formatMegabytes(serviceRss),
  };
}

const HEADER = `# Benchmarks

Generated by \`npm run bench\` (bench/run.ts); do not edit by hand. Each scenario's section is
replaced when that scenario runs (\`npm run bench -- NAME\`), so the sections can come from
different runs: each says when and where it was measured. Query plans, index listings and other
evidence behind the findings are in [docs/benchmarks/](docs/benchmarks/), linked from each section.

The service runs as a separate process (\`node dist/cli.js serve\`), started as the image's
entrypoint and the chart start it (each section says how), against a throwaway PostgreSQL 15 server
on the same machine. Every Node process of the bench, the ceilings and the bench's own in-process
measures included, runs on the image's Node (24, fetched by \`scripts/node24.sh\`). Every
requests/s figure has two ceilings measured in the same run, with the same autocannon settings,
answering the same bytes, each in a process of its own: a
minimal Express 5 app with one route, and a bare \`node:http\` server. Creations are compared with
a stand-in for cronbase, the Bun + SQLite scheduler issue 22 measures Crondeck against, run with Bun
from the npm registry (\`scripts/bun.sh\`). The machine is shared and noisy: compare the ratios
between runs, not the raw figures. Latencies are of 2xx responses.

How noisy: the machine has 2 cores, shared with other sessions running tests (load averages of 4
to 10 while these sections were measured; each section gives it at its start and end). Requests per second move by up to ±40% from one run to
the next and between the rounds of one run; ratios to the ceilings of the same run by about ±20%;
p99 latencies by a factor of 2 or more. Resident memory moves by a few MB between runs; counts
(writes per object, rows, commits) are exact. Where a figure was close to its bar it was measured
more than once: the profiles and repeated runs behind the findings of issue 22 are in
[docs/benchmarks/where-the-time-goes.md](docs/benchmarks/where-the-time-goes.md).
`;

const DETAILS_DIR = join(REPO_ROOT, 'docs', 'benchmarks');

/** Where a scenario's bars and findings are kept inside its section, for the summary to gather. */
const SUMMARY_DATA = /<!-- summary: (.*) -->/;

interface SummaryData {
  bars: Bar[];
  findings: string[];
}

function barsTable(bars: Bar[], withScenario?: string): string[] {
  const head = withScenario === undefined ? [] : ['scenario'];
  return [
    `| ${[...head, 'measure', 'bar', 'this run', ''].join(' | ')} |`,
    `| ${[...head, 'measure', 'bar', 'this run', ''].map(() => '---').join(' | ')} |`,
    ...bars.map(
      (bar) =>
        `| ${[...(withScenario === undefined ? [] : [withScenario]), bar.measure, bar.target, bar.measured, bar.met ? 'met' : '**missed**'].join(' | ')} |`,
    ),
  ];
}

/** The top of the file: every scenario's bars, met or not, and its findings, before any table. */
function summary(blocks: Map<string, string>, order: string[]): string {
  const rows: string[] = [];
  const findings: string[] = [];
  for (const name of order) {
    const data = SUMMARY_DATA.exec(blocks.get(name) ?? '');
    if (!data) continue;
    const parsed = JSON.parse(data[1]!) as SummaryData;
    if (parsed.bars.length > 0) rows.push(...barsTable(parsed.bars, name).slice(rows.length === 0 ? 0 : 2));
    findings.push(...parsed.findings.map((finding) => `- ${name}: ${finding}`));
  }
  if (rows.length === 0 && findings.length === 0) return '';
  return ['## Summary', '', ...(rows.length ? [...rows, ''] : []), ...findings, ''].join('\n');
}

/** Writes BENCHMARKS.md: this run's scenarios replace their sections, others are kept. */
function writeBenchmarks(environment: RunEnvironment, outcomes: ScenarioOutcome[]): void {
  const previous = existsSync(BENCHMARKS_FILE) ? readFileSync(BENCHMARKS_FILE, 'utf8') : '';
  const blocks = new Map<string, string>();
  for (const match of previous.matchAll(/<!-- scenario:(\S+) -->\n([\s\S]*?)<!-- \/scenario:\1 -->/g)) {
    blocks.set(match[1]!, match[2]!);
  }
  for (const outcome of outcomes) {
    // A skipped scenario keeps what an earlier run measured, if anything.
    if (outcome.status === 'skipped' && blocks.has(outcome.name)) continue;
    const detailsFile = `docs/benchmarks/${outcome.name}.md`;
    if (outcome.detailMarkdown) {
      mkdirSync(DETAILS_DIR, { recursive: true });
      writeFileSync(
        join(REPO_ROOT, detailsFile),
        `# Benchmarks: ${outcome.name}, details\n\nGenerated by \`${environment.command}\` on ${environment.date}, ` +
          `with [BENCHMARKS.md](../../BENCHMARKS.md).\n\n${outcome.detailMarkdown.replace(/^### /gm, '## ')}\n`,
      );
    }
    const summaryData: SummaryData = { bars: outcome.bars, findings: outcome.findings };
    blocks.set(
      outcome.name,
      [
        `## ${outcome.name}`,
        '',
        `<!-- summary: ${JSON.stringify(summaryData)} -->`,
        `- Measured: ${environment.date}, \`${environment.command}\` (${outcome.status}, ${outcome.seconds.toFixed(0)} s)`,
        `- Machine: ${environment.machine}`,
        `- Software: ${environment.software}`,
        `- Load: ${environment.settings}`,
        `- Machine load (1-minute load average, 2 cores shared with other work) at the scenario's start and end: ${outcome.load.map((l) => l.toFixed(1)).join(' and ')}`,
        `- The service processes: ${environment.serviceStart}`,
        `- The service process's RSS at the end of the whole run: ${environment.serviceRss}`,
        ...(outcome.detailMarkdown
          ? [`- Plans, listings and other detail: [${detailsFile}](${detailsFile})`]
          : []),
        '',
        ...(outcome.bars.length ? ['### Bars', '', ...barsTable(outcome.bars), ''] : []),
        ...(outcome.findings.length ? [...outcome.findings.map((finding) => `- ${finding}`), ''] : []),
        outcome.markdown,
        '',
      ].join('\n'),
    );
  }
  const order = [
    ...KNOWN_SCENARIOS,
    ...[...blocks.keys()].filter((n) => !KNOWN_SCENARIOS.includes(n)).sort(),
  ];
  const body = order
    .filter((name) => blocks.has(name))
    .map((name) => `<!-- scenario:${name} -->\n${blocks.get(name)!.trimEnd()}\n<!-- /scenario:${name} -->`)
    .join('\n\n');
  writeFileSync(BENCHMARKS_FILE, `${HEADER}\n${summary(blocks, order)}\n${body}\n`);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`bench: ${signal}, stopping everything`);
    void cleanUp().finally(() => process.exit(130));
  });
}

main(process.argv.slice(2))
  .then(
    async (code) => {
      await cleanUp();
      process.exit(code);
    },
    async (error: Error) => {
      console.error(`bench: ${error.stack ?? error.message}`);
      await cleanUp();
      process.exit(1);
    },
  )
  .catch(() => process.exit(1));
