import type { AttemptReportBody } from '../domain/attemptReport';
import { postUntilAnswered } from './servicePost';

/** The service refused a report for what it is (400, 403, 404, 413): sending it again cannot help. */
export class ReportRefusedError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface ReportClientOptions {
  /** The service's base URL, e.g. http://crondeck.crondeck.svc:7433 */
  reportUrl: string;
  jobId: number;
  /** The job's report token (from the Secret the controller owns). */
  token: string;
  /** How long to keep trying while the service is unreachable or busy. */
  budgetMs?: number;
  /** Largest body sent; output tails are shortened to fit (the service accepts 4 MiB). */
  bodyLimitBytes?: number;
  onRetry?: (reason: string, delayMs: number) => void;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Sends a pod's attempt reports to the service. A report is retried with backoff while the service
 * cannot take it (no connection, a timeout, 429, 5xx), which is safe because the service stores a
 * report once per pod and attempt however often it arrives. A refusal (4xx) is final.
 */
export class ReportClient {
  private readonly endpoint: string;

  constructor(private readonly options: ReportClientOptions) {
    this.endpoint = new URL(`/api/jobs/${options.jobId}/reports`, options.reportUrl).toString();
  }

  async send(report: AttemptReportBody): Promise<{ duplicate: boolean }> {
    const body = fitReport(report, this.options.bodyLimitBytes ?? 4 * 1024 * 1024 - 1024);
    let answer;
    try {
      answer = await postUntilAnswered(this.endpoint, body, {
        token: this.options.token,
        budgetMs: this.options.budgetMs ?? 10 * 60_000,
        onRetry: this.options.onRetry,
        sleep: this.options.sleep,
      });
    } catch (error) {
      throw new Error(`gave up sending the report: ${(error as Error).message}`, { cause: error });
    }
    if (answer.status === 200 || answer.status === 201) return { duplicate: answer.status === 200 };
    throw new ReportRefusedError(
      answer.status,
      `the service refused the report: ${answer.status} ${answer.text}`,
    );
  }
}

const SHORTENED = '[... output shortened to fit the report ...]\n';

/**
 * The report as JSON of at most `limitBytes`. When the output tails make it larger, each keeps its
 * end (where the error is) and says at its top that it was cut: the smaller tail keeps up to half
 * of the room, the other gets the rest.
 */
export function fitReport(report: AttemptReportBody, limitBytes: number): string {
  const tails = { stdout: report.stdout ?? '', stderr: report.stderr ?? '' };
  const overhead = Buffer.byteLength(JSON.stringify({ ...report, stdout: '', stderr: '' }));
  if (overhead > limitBytes) throw new Error('the report does not fit even without output');
  let room = limitBytes - overhead;
  const order: ('stdout' | 'stderr')[] =
    jsonBytes(tails.stdout) <= jsonBytes(tails.stderr) ? ['stdout', 'stderr'] : ['stderr', 'stdout'];
  for (const [index, name] of order.entries()) {
    tails[name] = tailWithin(tails[name], index === 0 ? Math.floor(room / 2) : room);
    room -= jsonBytes(tails[name]);
  }
  return JSON.stringify({ ...report, ...tails });
}

/** Bytes a string takes inside JSON, without its quotes (escapes make a character cost up to six). */
function jsonBytes(text: string): number {
  return Buffer.byteLength(JSON.stringify(text)) - 2;
}

/** The longest end of `text` that fits in `maxBytes` of JSON behind the "shortened" line. */
function tailWithin(text: string, maxBytes: number): string {
  if (jsonBytes(text) <= maxBytes) return text;
  let fits = 0;
  let fails = text.length;
  while (fails - fits > 1) {
    const middle = Math.floor((fits + fails) / 2);
    if (jsonBytes(SHORTENED + text.slice(text.length - middle)) <= maxBytes) fits = middle;
    else fails = middle;
  }
  if (fits === 0 && jsonBytes(SHORTENED) > maxBytes) return '';
  // No need to guard surrogate pairs: a lone half costs six bytes in JSON, a whole pair four, so
  // the longest end that fits never starts inside a pair.
  return SHORTENED + text.slice(text.length - fits);
}
