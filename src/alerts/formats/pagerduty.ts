import type { AlertSnapshot } from '../alertSnapshot';
import { escapeWithin, formatDuration, headline, hintLine } from './presentation';

/** The Events API v2 limits, in characters. */
export const PAGERDUTY_LIMITS = { summary: 1024 };

/** The query parameter of a PagerDuty destination's URL that holds the integration key. */
const ROUTING_KEY_PARAMETER = 'routing_key';
/** "The 32 character Integration Key for an integration on a service or on a global ruleset." */
const ROUTING_KEY = /^[A-Za-z0-9]{32}$/;

type Severity = 'critical' | 'error' | 'warning' | 'info';

/** Events that end the job's incident. Every other event opens it, or adds to it while it is open. */
const RESOLVING_EVENTS: ReadonlySet<string> = new Set(['success', 'recovered']);
/** A run that failed is an error; a job taken out of service is critical; the rest are warnings. */
const SEVERITY: Readonly<Record<string, Severity>> = {
  failed: 'error',
  timeout: 'error',
  suspended: 'critical',
};

/**
 * PagerDuty's Events API v2 endpoint, in the US or the EU service region:
 * `https://events.pagerduty.com/v2/enqueue`, `https://events.eu.pagerduty.com/v2/enqueue`.
 */
export function isPagerDutyUrl(url: URL): boolean {
  const host = url.hostname.toLowerCase();
  const eventsHost = host === 'events.pagerduty.com' || /^events\.[a-z0-9-]+\.pagerduty\.com$/.test(host);
  return eventsHost && url.pathname === '/v2/enqueue';
}

/**
 * Splits a PagerDuty destination URL into where events are posted (the URL without its routing
 * key, which belongs in the body) and the key. A URL without exactly one well-formed key answers
 * with what is wrong, never quoting the key.
 */
export function pagerDutyEndpoint(url: string): { url: string; routingKey: string } | { problem: string } {
  const parsed = new URL(url);
  const keys = parsed.searchParams.getAll(ROUTING_KEY_PARAMETER);
  if (keys.length !== 1 || !ROUTING_KEY.test(keys[0]!)) {
    return {
      problem: `a PagerDuty destination needs ?${ROUTING_KEY_PARAMETER}= once, with the 32-character integration key (letters and digits)`,
    };
  }
  parsed.searchParams.delete(ROUTING_KEY_PARAMETER);
  return { url: parsed.toString(), routingKey: keys[0]! };
}

/** One incident per job: every trigger adds to the open one, and a resolve closes it. */
function pagerDutyDedupKey(jobId: number): string {
  return `crondeck-job-${jobId}`;
}

/**
 * What an event's `custom_details` say of the run: its execution where there is one (with its
 * reason and what to try, when it has a reason), the run still going for an overrun, and what the
 * alert policy adds (the generic payload's fields).
 */
function runDetails(snapshot: AlertSnapshot): Record<string, unknown> {
  const { execution, reminder, consecutiveFailures, failingSince, minDurationSeconds, suspendedReason, run } =
    snapshot;
  const details: Record<string, unknown> = {};
  if (execution) {
    Object.assign(details, {
      executionId: execution.id,
      status: execution.status,
      exitCode: execution.exitCode,
      duration: formatDuration(execution.durationMs),
      durationMs: execution.durationMs,
      attempt: execution.attempt,
      startedAt: execution.startedAt,
      finishedAt: execution.finishedAt,
      stderrTail: execution.stderrTail,
      stdoutTail: execution.stdoutTail,
    });
    // Why it ended so and what to try, where there is something to say.
    if (execution.reason) {
      Object.assign(details, {
        reason: execution.reason,
        reasonMessage: execution.reasonMessage ?? null,
        hint: hintLine(snapshot),
      });
    }
  }
  if (reminder) details.reminder = reminder;
  if (consecutiveFailures !== undefined) details.consecutiveFailures = consecutiveFailures;
  if (failingSince !== undefined) details.failingSince = failingSince;
  if (minDurationSeconds !== undefined) details.minDurationSeconds = minDurationSeconds;
  if (suspendedReason !== undefined) details.suspendedReason = suspendedReason;
  if (run) details.run = { ...run };
  // The slot of a `missed` or `late` alert (docs/slots.md), as the generic payload has it.
  if (snapshot.slot) details.slot = { ...snapshot.slot };
  return details;
}

/**
 * An Events API v2 event for an alert. A failure (`failed`, `timeout`, and the other problem
 * events) triggers the job's incident with a summary, the job as source and component, and the
 * run in `custom_details`; `success` and `recovered` resolve it. Resolving an incident that is not
 * open is a no-op for PagerDuty, so a success sent after every run is harmless.
 */
export function pagerDutyEvent(snapshot: AlertSnapshot, routingKey: string) {
  const { event, execution, job } = snapshot;
  const dedupKey = pagerDutyDedupKey(job.id);
  if (RESOLVING_EVENTS.has(event)) {
    return { routing_key: routingKey, event_action: 'resolve', dedup_key: dedupKey };
  }
  // An overrun is about a run still going: its headline says for how long.
  const summary = execution
    ? `${headline(snapshot)} (exit code ${execution.exitCode}, attempt ${execution.attempt})`
    : headline(snapshot);
  return {
    routing_key: routingKey,
    event_action: 'trigger',
    dedup_key: dedupKey,
    client: 'Crondeck',
    payload: {
      summary: escapeWithin(summary, PAGERDUTY_LIMITS.summary, (c) => c),
      source: `crondeck:${job.name}`,
      severity: SEVERITY[event] ?? 'warning',
      timestamp: execution?.finishedAt ?? snapshot.timestamp,
      component: job.name,
      group: 'crondeck',
      class: event,
      custom_details: {
        event,
        job: job.name,
        jobId: job.id,
        schedule: job.schedule,
        command: job.command,
        ...runDetails(snapshot),
      },
    },
  };
}
