import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Where Debian's `chromium` package puts the browser; CHROMIUM_PATH points elsewhere. */
export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';

/** CI sets it: dashboard tests that cannot run fail the run instead of being skipped. */
const REQUIRE_BROWSER_ENV = 'CRONDECK_REQUIRE_BROWSER';

export type ChromiumOutcome = { available: true } | { available: false; reason: string };

export interface EnsureChromiumOptions {
  env?: NodeJS.ProcessEnv;
  isRoot?: boolean;
  /** Where the package installs the browser (tests point it elsewhere). */
  defaultPath?: string;
  /** Told before anything is installed (one line). */
  log?: (line: string) => void;
}

/**
 * Makes sure the dashboard tests have their browser, Debian's `chromium` (never a browser
 * download): where it is missing and this machine allows it (root, with apt-get), it is installed
 * with apt-get, refreshing the package lists first only if the package is not found. Quiet and
 * immediate when the browser is there. Otherwise says why it is not.
 */
export async function ensureChromium(options: EnsureChromiumOptions = {}): Promise<ChromiumOutcome> {
  const env = options.env ?? process.env;
  const chromiumPath = env.CHROMIUM_PATH || (options.defaultPath ?? DEFAULT_CHROMIUM_PATH);
  if (existsSync(chromiumPath)) return { available: true };
  if (env.CHROMIUM_PATH)
    return { available: false, reason: `CHROMIUM_PATH is ${chromiumPath}, which does not exist` };
  if (!(options.isRoot ?? process.getuid?.() === 0)) {
    return {
      available: false,
      reason: `Chromium is not installed at ${chromiumPath}, and only root can install it here`,
    };
  }
  const aptGet = findOnPath('apt-get', env.PATH ?? '');
  if (!aptGet) {
    return {
      available: false,
      reason: `Chromium is not installed at ${chromiumPath}, and this machine has no apt-get`,
    };
  }
  options.log?.(`installing Debian's chromium for the dashboard tests (apt-get install -y chromium)`);
  const aptEnv = { ...env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () => run(aptGet, ['install', '-y', '-qq', 'chromium'], aptEnv);
  let failure = await install();
  if (failure !== null) {
    // A machine whose package lists were never fetched does not know the package yet.
    failure = (await run(aptGet, ['update', '-qq'], aptEnv)) ?? (await install());
  }
  if (failure === null && existsSync(chromiumPath)) return { available: true };
  return {
    available: false,
    reason: `apt-get install -y chromium did not install ${chromiumPath}${failure ? `: ${failure}` : ''}`,
  };
}

/**
 * What the suite does without a browser: a run that requires one (CI) fails with the reason;
 * otherwise the dashboard tests are skipped, and this one line says so and how to run them.
 */
export function skipNotice(outcome: ChromiumOutcome, env: NodeJS.ProcessEnv = process.env): string | null {
  if (outcome.available) return null;
  if (env[REQUIRE_BROWSER_ENV]) {
    throw new Error(`the dashboard tests need a browser (${REQUIRE_BROWSER_ENV} is set): ${outcome.reason}`);
  }
  return (
    `dashboard tests skipped: ${outcome.reason}. To run them, install Debian's chromium ` +
    '(as root: apt-get install -y chromium) or set CHROMIUM_PATH, then npm test again.'
  );
}

function findOnPath(name: string, path: string): string | null {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return null;
}

/** Runs a command quietly; answers null on success, else the end of what it printed. */
function run(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<string | null> {
  return new Promise((resolve) =>
    execFile(file, args, { env, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve(error ? `${stdout}${stderr}`.trim().split('\n').slice(-3).join(' ') || error.message : null),
    ),
  );
}
