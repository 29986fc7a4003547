import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Where the recorded kube-apiserver answers were read from before they were copied in (beside the
 * repository, in the shared folder): named in pieces so that this file does not read as using it.
 */
const OLD_FIXTURES = ['shared', 'kube-api'].join('/');

/**
 * A clone with nothing beside it runs every test: no code reads a path outside the repository.
 * The suite once read the recorded kube-apiserver answers from a sibling folder that only the
 * maintainers' machines had, and a fresh clone failed 201 tests. `.ci/run` proves the whole suite
 * from a fresh clone; this test names the offending line as soon as one is written.
 */

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const SCANNED = ['src', 'test', 'bench', 'scripts'];
const SOURCE_FILE = /\.(ts|js|mjs|cjs|sh)$/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return entry === 'fixtures' ? [] : sourceFiles(full);
    // This file spells out the paths it looks for.
    return SOURCE_FILE.test(entry) && full !== __filename ? [full] : [];
  });
}

const existsInRepository = (target: string) => ['', '.ts', '.js'].some((ext) => existsSync(target + ext));
const inside = (target: string) => target === REPO_ROOT || target.startsWith(REPO_ROOT + path.sep);

/** The string arguments of `resolve(__dirname, ...)` / `join(__dirname, ...)` calls, joined. */
const DIRNAME_CALL = /\b(?:resolve|join)\(\s*__dirname\s*((?:,\s*'[^']*'\s*)+),?\s*\)/g;
/** A quoted relative path that climbs (`'../x'`), and what stands before it (`from `, `require(`). */
const CLIMBING_LITERAL = /(\bfrom\s+|\b(?:require|import|mock)\(\s*)?(['"`])((?:\.\.\/)+[^'"`\s]*)\2/g;

/** Every place in `text` (a file at `file`) that reaches outside the repository. */
export function pathsOutside(file: string, text: string): string[] {
  const dir = path.dirname(file);
  const found: string[] = [];
  for (const match of text.matchAll(DIRNAME_CALL)) {
    const parts = [...match[1]!.matchAll(/'([^']*)'/g)].map((m) => m[1]!);
    if (!inside(path.resolve(dir, ...parts))) found.push(match[0]);
  }
  for (const [, moduleSpecifier, , literal] of text.replace(DIRNAME_CALL, '').matchAll(CLIMBING_LITERAL)) {
    const fromFile = path.resolve(dir, literal!);
    if (!inside(fromFile)) found.push(literal!);
    // Not a module, and nothing of the repository's from the file's folder: a path read from the
    // working directory, which is the repository's root for every script and test.
    else if (
      !moduleSpecifier &&
      !existsInRepository(fromFile) &&
      !inside(path.resolve(REPO_ROOT, literal!))
    ) {
      found.push(literal!);
    }
  }
  if (text.includes(OLD_FIXTURES)) found.push(OLD_FIXTURES);
  return found;
}

describe('the repository is self-contained', () => {
  it('reads nothing outside the repository from src, test, bench or scripts', () => {
    const offenders = SCANNED.flatMap((top) =>
      sourceFiles(path.join(REPO_ROOT, top)).flatMap((file) =>
        pathsOutside(file, readFileSync(file, 'utf8')).map((p) => `${path.relative(REPO_ROOT, file)}: ${p}`),
      ),
    );
    expect(offenders).toEqual([]);
  });

  it('recognises the ways a path leaves the repository', () => {
    const file = path.join(REPO_ROOT, 'test', 'support', 'kube', 'openapi.ts');
    expect(pathsOutside(file, `resolve(__dirname, '../../../../${OLD_FIXTURES}/openapi')`)).not.toEqual([]);
    expect(pathsOutside(file, "path.join(__dirname, '..', '..', '..', '..', 'elsewhere')")).toEqual([
      "join(__dirname, '..', '..', '..', '..', 'elsewhere')",
    ]);
    expect(pathsOutside(file, "readFileSync('../sibling/data.json')")).toEqual(['../sibling/data.json']);
    expect(pathsOutside(file, "import { x } from '../types';")).toEqual([]);
    expect(pathsOutside(file, "jest.mock('../../../src/service')")).toEqual([]);
    expect(pathsOutside(file, "resolve(__dirname, '../../..', 'package.json')")).toEqual([]);
  });
});
