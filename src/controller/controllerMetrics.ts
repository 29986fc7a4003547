import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';

/** What the controller exposes on its own /metrics (the chart's dashboard and alerts use them). */
export class ControllerMetrics {
  readonly registry = new Registry();
  readonly reconciles = new Counter({
    name: 'crondeck_controller_reconcile_total',
    help: 'Reconciles by kind of object and result (success, error).',
    labelNames: ['kind', 'result'] as const,
    registers: [this.registry],
  });
  readonly queueDepth = new Gauge({
    name: 'crondeck_controller_workqueue_depth',
    help: 'Objects waiting to be reconciled.',
    registers: [this.registry],
  });
  readonly lastReconcile = new Gauge({
    name: 'crondeck_controller_last_reconcile_timestamp_seconds',
    help: 'When the controller was last known in sync: a reconcile succeeded, or there was nothing to reconcile (Unix time).',
    registers: [this.registry],
  });
  readonly leader = new Gauge({
    name: 'crondeck_controller_leader',
    help: '1 while this replica is the leader and acts, 0 while it waits.',
    registers: [this.registry],
  });

  constructor() {
    // The process's memory, CPU and event-loop lag (process_*, nodejs_*): a controller's cost
    // grows with the objects it caches, and this is where an operator sees it.
    collectDefaultMetrics({ register: this.registry });
  }
}
