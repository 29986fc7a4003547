import { Counter, Gauge, Registry } from 'prom-client';
import type { FinalStatus } from '../domain/execution';

/** The content type of the text exposition format, exactly as the spec names it. */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4';

/** Everything `/metrics` shows, read from the database in one go at scrape time. */
export interface MetricsSnapshot {
  jobs: { enabled: number; disabled: number };
  executions: Record<FinalStatus, number>;
  recentDurations: { count: number; sumSeconds: number };
  schedulerPaused: boolean;
  dbSizeBytes: number;
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

/** The six metrics of the spec, on a registry of their own. */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly jobs: Gauge<'status'>;
  private readonly executions: Counter<'status'>;
  private readonly durations: PrecomputedSummary;
  private readonly paused: Gauge;
  private readonly dbSize: Gauge;

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
    return this.registry.metrics();
  }
}
