import { Counter, Gauge, Registry } from 'prom-client';
import type { FinalStatus } from '../domain/execution';
import type { SlotOutcome } from '../domain/slots';

/** The content type of the text exposition format, exactly as the spec names it. */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4';

/** Everything `/metrics` shows, read from the database in one go at scrape time. */
export interface MetricsSnapshot {
  jobs: { enabled: number; disabled: number };
  executions: Record<FinalStatus, number>;
  recentDurations: { count: number; sumSeconds: number };
  schedulerPaused: boolean;
  dbSizeBytes: number;
  /** Judged slots by outcome, kept in the database (docs/slots.md). */
  slots: Record<SlotOutcome, number>;
  /** When each job's latest successful execution finished, by job name. */
  lastSuccesses: Map<string, Date>;
}

/**
 * A summary whose count and sum are computed elsewhere (over the latest executions in the
 * database) rather than observed in this process, so every replica reports the same numbers.
 */
class PrecomputedSummary {
  readonly type = 'summary';
  readonly aggregator = 'first';
  private count = 0;
  private sum = 0;

  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  set(count: number, sum: number): void {
    this.count = count;
    this.sum = sum;
  }

  get() {
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values: [
        { metricName: `${this.name}_sum`, labels: {}, value: this.sum },
        { metricName: `${this.name}_count`, labels: {}, value: this.count },
      ],
    };
  }

  reset(): void {
    this.set(0, 0);
  }
}

/** The six metrics of the spec and the slot ledger's two, on a registry of their own. */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly jobs: Gauge<'status'>;
  private readonly executions: Counter<'status'>;
  private readonly durations: PrecomputedSummary;
  private readonly paused: Gauge;
  private readonly dbSize: Gauge;
  private readonly slots: Counter<'outcome'>;
  private readonly lastSuccess: Gauge<'job_name'>;

  constructor(version: string) {
    const registers = [this.registry];
    new Gauge({
      name: 'service_info',
      help: 'Service information; always 1',
      labelNames: ['version'],
      registers,
    }).set({ version }, 1);
    this.jobs = new Gauge({
      name: 'service_jobs_total',
      help: 'Number of jobs',
      labelNames: ['status'],
      registers,
    });
    this.executions = new Counter({
      name: 'service_executions_total',
      help: 'Cumulative executions by status',
      labelNames: ['status'],
      registers,
    });
    this.durations = new PrecomputedSummary(
      'service_execution_duration_seconds',
      'Duration of the latest 1000 executions, in seconds',
    );
    this.registry.registerMetric(this.durations as never);
    this.paused = new Gauge({
      name: 'service_scheduler_paused',
      help: '1 when the scheduler is paused',
      registers,
    });
    this.dbSize = new Gauge({ name: 'service_db_size_bytes', help: 'Database size in bytes', registers });
    this.slots = new Counter({
      name: 'service_slots_total',
      help: 'Cumulative judged slots (fire times) by outcome: ran, late, skipped, suspended, paused, missed, duplicate',
      labelNames: ['outcome'],
      registers,
    });
    this.lastSuccess = new Gauge({
      name: 'service_job_last_success_timestamp_seconds',
      help: "Unix time at which each job's latest successful run finished (a dead man's switch alerts on its age)",
      // Not `job`: Prometheus gives every scraped series a `job` label of its own (the scrape's), and
      // renames a target's to `exported_job`, so `{job="backup"}` would match nothing.
      labelNames: ['job_name'],
      registers,
    });
  }

  /** Renders the exposition text for a snapshot. */
  async render(snapshot: MetricsSnapshot): Promise<string> {
    this.jobs.set({ status: 'enabled' }, snapshot.jobs.enabled);
    this.jobs.set({ status: 'disabled' }, snapshot.jobs.disabled);
    // The totals live in the database (they survive restarts and pruning); mirror them exactly.
    this.executions.reset();
    for (const [status, total] of Object.entries(snapshot.executions)) this.executions.inc({ status }, total);
    this.durations.set(snapshot.recentDurations.count, snapshot.recentDurations.sumSeconds);
    this.paused.set(snapshot.schedulerPaused ? 1 : 0);
    this.dbSize.set(snapshot.dbSizeBytes);
    this.slots.reset();
    for (const [outcome, total] of Object.entries(snapshot.slots)) this.slots.inc({ outcome }, total);
    // Reset first: a deleted or renamed job must not stay on as a stale series.
    this.lastSuccess.reset();
    for (const [job, at] of snapshot.lastSuccesses)
      this.lastSuccess.set({ job_name: job }, at.getTime() / 1000);
    return this.registry.metrics();
  }
}
