/**
 * The Dockerfile is not built here (no Docker engine): its parts are checked instead. What it
 * copies exists and is not excluded by .dockerignore, the entrypoint runs package.json's bin,
 * it is multi-stage with production dependencies only, and it runs as 65532.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './support';

const dockerfile = readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
const instructions = dockerfile
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  bin: Record<string, string>;
  scripts: Record<string, string>;
  version: string;
};

function stages(): string[][] {
  const out: string[][] = [];
  for (const line of instructions) {
    if (/^FROM /i.test(line)) out.push([]);
    out.at(-1)?.push(line);
  }
  return out;
}

/** .dockerignore as Docker reads it: the last matching pattern wins, `!` re-includes. */
function ignored(file: string): boolean {
  const patterns = readFileSync(path.join(REPO_ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  let out = false;
  for (const p of patterns) {
    const negate = p.startsWith('!');
    const glob = negate ? p.slice(1) : p;
    const re = new RegExp(
      `^${glob
        .replace(/[.+^${}()|[\]]/g, '\\$&')
        .replace(/\*\*/g, '§')
        .replace(/\*/g, '[^/]*')
        .replace(/§/g, '.*')}(/.*)?$`,
    );
    if (re.test(file)) out = !negate;
  }
  return out;
}

describe('the Dockerfile', () => {
  test('builds in one stage with dev dependencies and prunes to production ones', () => {
    const [build, runtime, ...rest] = stages();
    expect(rest).toEqual([]);
    expect(build![0]).toMatch(/^FROM \$\{NODE_IMAGE\} AS build$/);
    expect(build!.join('\n')).toMatch(/npm install/);
    expect(build!.join('\n')).toMatch(/npm run build/);
    expect(build!.join('\n')).toMatch(/npm prune --omit=dev/);
    expect(runtime![0]).toMatch(/^FROM \$\{NODE_IMAGE\} AS runtime$/);
  });

  test('builds on Node 24 LTS, which package.json admits and CI runs the suite on', () => {
    // Node 20 reached its end of life in April 2026.
    expect(instructions).toContain('ARG NODE_IMAGE=node:24-bookworm-slim');
    expect(pkg.engines.node).toBe('^20.19.0 || >=24');
    const ci = readFileSync(path.join(REPO_ROOT, '.ci', 'run'), 'utf8');
    expect(ci).toMatch(/PATH="\$\(bash scripts\/node24\.sh\):\$PATH"/);
    expect(readFileSync(path.join(REPO_ROOT, 'scripts', 'node24.sh'), 'utf8')).toMatch(
      /^VERSION="\$\{NODE24_VERSION:-24\./m,
    );
  });

  test('copies from the build context only files that exist and .dockerignore lets through', () => {
    const sources = instructions
      .filter((l) => /^COPY /.test(l) && !/--from=/.test(l))
      .flatMap((l) => l.split(/\s+/).slice(1, -1));
    expect(sources.length).toBeGreaterThan(3);
    for (const source of sources) {
      expect([source, existsSync(path.join(REPO_ROOT, source))]).toEqual([source, true]);
      expect([source, ignored(source)]).toEqual([source, false]);
    }
    for (const needed of ['src/cli.ts', 'src/dashboard/assets', 'package-lock.json'])
      expect(ignored(needed)).toBe(false);
    for (const kept of [
      'node_modules/x',
      '.git/HEAD',
      'dist/cli.js',
      'test/x.ts',
      '.cache/kube-tools/helm',
    ]) {
      expect([kept, ignored(kept)]).toEqual([kept, true]);
    }
  });

  test('the runtime carries what the service reads beside dist/: package.json and the dashboard assets', () => {
    const runtime = stages()[1]!.join('\n');
    expect(runtime).toContain('COPY --from=build /app/package.json ./package.json');
    expect(runtime).toContain('COPY --from=build /app/node_modules ./node_modules');
    expect(runtime).toContain('COPY --from=build /app/dist ./dist');
    expect(runtime).toContain('COPY src/dashboard/assets ./src/dashboard/assets');
  });

  test('the crondeck entrypoint runs package.json bin, and carries sh, curl and a PostgreSQL client', () => {
    expect(pkg.bin.crondeck).toBe('dist/cli.js');
    const runtime = stages()[1]!.join('\n');
    expect(runtime).toContain(`exec node --liftoff-only /app/${pkg.bin.crondeck} "$@"`);
    expect(runtime).toContain('> /usr/local/bin/crondeck');
    expect(instructions).toContain('ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/crondeck"]');
    for (const tool of ['curl', 'postgresql-client', 'tini', 'tzdata', 'ca-certificates'])
      expect(runtime).toContain(` ${tool}`);
    expect(readFileSync(path.join(REPO_ROOT, 'src', 'cli.ts'), 'utf8')).toMatch(/case 'serve'/);
  });

  test('runs as 65532:65532 with HOME and the data directory under /tmp', () => {
    const runtime = stages()[1]!;
    expect(runtime).toContain('USER 65532:65532');
    expect(runtime.indexOf('USER 65532:65532')).toBeGreaterThan(
      runtime.findIndex((l) => l.startsWith('RUN printf')),
    );
    expect(runtime.join('\n')).toMatch(/HOME=\/tmp/);
    expect(runtime.join('\n')).toMatch(/SERVICE_DATA_DIR=\/tmp\/data/);
  });

  test('npm run image tags it ghcr.io/crondeck/crondeck:<package version>', () => {
    expect(pkg.scripts.image).toBe('docker build -t ghcr.io/crondeck/crondeck:${npm_package_version} .');
  });
});
