import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { ALERT_POLICY_KEY, alertConfigFromShortcuts } from '../alerts/shortcuts';
import { jobInputSchema, type JobInput } from '../domain/job';
import { describeZodError } from '../domain/zodErrors';

/**
 * A jobs file (`crondeck serve --config jobs.yaml`, YAML or JSON): `{ jobs: [ ... ] }`, each entry
 * with the job fields of the API. Alert shortcuts (`on_failure`, ...) and the alert policy
 * (`alert_policy`) are read by the alerting room from the same entries.
 */
export interface DeclaredJob {
  input: JobInput;
  /** The entry as written, for rooms that read more of it (alert shortcuts). */
  raw: Record<string, unknown>;
  /** The file it was declared in, for messages about it. */
  file?: string;
}

const fileSchema = z.object(
  {
    jobs: z.array(z.record(z.string(), z.unknown(), { error: 'each job must be a mapping' }), {
      error: 'jobs must be a list',
    }),
  },
  { error: 'the file must be a mapping with a jobs list' },
);

/** Keys a jobs file entry may carry besides the job fields. */
const ALERT_SHORTCUT_KEYS = [
  'on_failure',
  'on_success',
  'on_complete',
  'on_failure_email',
  'on_success_email',
  'on_complete_email',
  'on_missed',
  'on_missed_email',
  ALERT_POLICY_KEY,
] as const;

/**
 * Parses a jobs file. Every entry is checked before anything is applied: the first bad one throws
 * an error naming the job and the field, and no job of the file is created.
 */
export function parseJobsFile(text: string, fileName: string): DeclaredJob[] {
  let document: unknown;
  try {
    // yaml is loaded with the first YAML file: a service started without one never needs it.
    document = fileName.endsWith('.json')
      ? JSON.parse(text)
      : (require('yaml') as typeof import('yaml')).parse(text);
  } catch (error) {
    throw new Error(
      `${fileName}: not valid ${fileName.endsWith('.json') ? 'JSON' : 'YAML'}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  const parsed = fileSchema.safeParse(document);
  if (!parsed.success) throw new Error(`${fileName}: ${describeZodError(parsed.error)}`);

  const seen = new Set<string>();
  return parsed.data.jobs.map((entry, index) => {
    // JSON quoting shows a control character in a name as an escape rather than writing it raw.
    const label =
      typeof entry.name === 'string' && entry.name
        ? `job ${JSON.stringify(entry.name)}`
        : `job #${index + 1}`;
    const jobFields = Object.fromEntries(
      Object.entries(entry).filter(([key]) => !(ALERT_SHORTCUT_KEYS as readonly string[]).includes(key)),
    );
    const result = jobInputSchema.safeParse(jobFields);
    if (!result.success) throw new Error(`${fileName}: ${label}: ${describeZodError(result.error)}`);
    if (seen.has(result.data.name)) throw new Error(`${fileName}: ${label}: name is declared twice`);
    seen.add(result.data.name);
    try {
      alertConfigFromShortcuts(entry);
    } catch (error) {
      throw new Error(`${fileName}: ${label}: ${(error as Error).message}`, { cause: error });
    }
    return { input: result.data, raw: entry, file: fileName };
  });
}

export async function readJobsFile(path: string): Promise<DeclaredJob[]> {
  return parseJobsFile(await readFile(path, 'utf8'), path);
}
