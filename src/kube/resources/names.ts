import { nameHash } from './hashedName';
import { DNS1123_SUBDOMAIN_PATTERN } from './kubernetesFields';

/** Annotation on a ScheduledJob that keeps the API name when it is not the CR name itself. */
export const JOB_NAME_ANNOTATION = 'crondeck.dev/job-name';

/**
 * The ScheduledJob name (a DNS-1123 subdomain) for a job's API name (`^[a-zA-Z0-9][a-zA-Z0-9._-]*$`,
 * at most 200 characters):
 * - a name that already is a DNS-1123 subdomain is used unchanged (`backup`, `db.vacuum-1`);
 * - any other name is lowercased, `_` and other characters become `-`, each dot-separated part is
 *   trimmed to start and end with a letter or digit, and `-` plus 8 hex digits of the SHA-256 of the
 *   original name are appended (`Nightly_Backup` becomes `nightly-backup-<hash>`).
 * The hash keeps names that differ only in case or punctuation apart (`Backup` and `backup` map to
 * different CRs). The mapping is not reversible, so such a CR keeps the API name in the
 * `crondeck.dev/job-name` annotation; the controller treats an existing CR whose annotation names
 * another job as a duplicate (409) rather than adopting it.
 */
export function crNameForJobName(name: string): string {
  if (name.length <= 253 && DNS1123_SUBDOMAIN_PATTERN.test(name)) return name;
  const parts = name
    .toLowerCase()
    .replace(/[^a-z0-9.]/g, '-')
    .split('.')
    .map((part) => part.replace(/^-+|-+$/g, ''))
    .filter((part) => part.length > 0);
  const base = parts
    .join('.')
    .slice(0, 200)
    .replace(/[-.]+$/, '');
  return base.length > 0 ? `${base}-${nameHash(name)}` : `job-${nameHash(name)}`;
}

/**
 * Why a ScheduledJob's `crondeck.dev/job-name` annotation cannot stand, or null when it can: the
 * annotation is honoured only on the resource whose name it maps to (`crNameForJobName`), so that
 * no resource takes another job's name by annotating itself.
 */
export function jobNameAnnotationProblem(metadata: {
  name?: string;
  annotations?: Record<string, string>;
}): string | null {
  const annotated = metadata.annotations?.[JOB_NAME_ANNOTATION];
  if (annotated === undefined) return null;
  const expected = crNameForJobName(annotated);
  if (expected === metadata.name) return null;
  return (
    `metadata.annotations.${JOB_NAME_ANNOTATION}: the job name ${JSON.stringify(annotated)} belongs to ` +
    `the resource named ${JSON.stringify(expected)}; remove the annotation or rename the resource`
  );
}

/** The job's API name: the annotation when the CR name had to be rewritten, else the CR name. */
export function jobNameOfScheduledJob(metadata: {
  name?: string;
  annotations?: Record<string, string>;
}): string {
  return metadata.annotations?.[JOB_NAME_ANNOTATION] ?? metadata.name ?? '';
}
