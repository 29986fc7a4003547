import path from 'node:path';

/**
 * What a real kube-apiserver v1.32 answered (transcripts and OpenAPI v3 documents), kept in the
 * repository so that a clone with nothing beside it runs every test. Its README says where it came
 * from; `npm run fixtures:kube-api` refreshes it from a newer recording.
 *
 * Found from this file rather than the working directory, and through the repository's own
 * `test/` path, so that the bench's compiled copy (under .bench/build/test/support) reads the same
 * files: both sit exactly two folders below a directory that holds `test/fixtures`.
 */
const KUBE_API_DIR = path.resolve(sourceRoot(__dirname), 'test', 'fixtures', 'kube-api');

export const KUBE_API_OPENAPI_DIR = path.join(KUBE_API_DIR, 'openapi');
export const KUBE_API_TRANSCRIPTS_DIR = path.join(KUBE_API_DIR, 'transcripts');

/** The repository's root as seen from `test/support` or its compiled copy under `.bench/build`. */
function sourceRoot(supportDir: string): string {
  const root = path.resolve(supportDir, '..', '..');
  const compiled = path.join('.bench', 'build');
  return root.endsWith(compiled) ? root.slice(0, -compiled.length - 1) : root;
}
