import type { Pool } from 'pg';
import type { AlertConfig } from '../domain/alertConfig';
import { invalid, notFound } from '../domain/errors';
import { withTransaction } from '../store/database';
import { findJob, findJobByName } from '../store/jobs';
import {
  clearAlertConfig,
  deleteAlertConfig,
  listJobAlerts,
  readJobAlertConfig,
  readWebhookSecrets,
  saveAlertConfig,
} from '../store/alerts';
import type { WebhookAddressPolicy } from './addressPolicy';
import { destinationName } from './destinationName';
import type { AlertHistoryItem, AlertsApi } from './routes';
import { checkWebhookChannels } from './webhookChannels';
import { publicAlertConfig, resolveWebhookSecrets, webhookSecretsOf } from './webhookSecrets';

/** A config-file job's alert shortcuts, already checked: null when the entry declares none. */
export interface DeclaredAlerts {
  jobName: string;
  config: AlertConfig | null;
}

/** What the controller does with a job's alerts: make them exactly what the cluster declares. */
export interface JobAlertsSync {
  /**
   * Writes `config`, signing secrets as given (a webhook without one is unsigned), unless it is
   * what is stored already. Returns whether it wrote.
   */
  sync(jobId: number, config: AlertConfig): Promise<boolean>;
}

/** Reading and replacing alert configurations: the API's use cases, the config file's, the controller's. */
export class AlertConfigService implements AlertsApi, JobAlertsSync {
  constructor(
    private readonly pool: Pool,
    private readonly policy: WebhookAddressPolicy,
  ) {}

  /** The configuration as it is shown: a signed webhook says `signed: true`, never its secret. */
  async get(jobId: number): Promise<AlertConfig> {
    const config = await readJobAlertConfig(this.pool, jobId);
    if (!config) throw notFound(`job ${jobId} not found`);
    return config;
  }

  /**
   * A PUT: the secrets of signed webhooks come from the body or, with `signed: true`, from what is
   * stored (see `resolveWebhookSecrets`). Answers what is stored, as `get` shows it.
   */
  async replace(jobId: number, config: AlertConfig): Promise<AlertConfig> {
    checkWebhookChannels(config);
    // Names are resolved before the transaction: a slow resolver must not hold the job's row.
    await this.checkResolvedAddresses(config);
    const resolved = await withTransaction(this.pool, async (tx) => {
      const stored = await readWebhookSecrets(tx, jobId, true);
      if (!stored) throw notFound(`job ${jobId} not found`);
      const next = resolveWebhookSecrets(config, stored);
      await saveAlertConfig(tx, jobId, next, 'api');
      return next;
    });
    return publicAlertConfig(resolved);
  }

  async sync(jobId: number, config: AlertConfig): Promise<boolean> {
    const [shown, secrets] = await Promise.all([this.get(jobId), readWebhookSecrets(this.pool, jobId)]);
    const unchanged =
      canonicalJson(shown) === canonicalJson(publicAlertConfig(config)) &&
      JSON.stringify(secrets) === JSON.stringify(webhookSecretsOf(config));
    if (unchanged) return false;
    checkWebhookChannels(config);
    await this.checkResolvedAddresses(config);
    if (!(await saveAlertConfig(this.pool, jobId, config, 'api'))) throw notFound(`job ${jobId} not found`);
    return true;
  }

  async remove(jobId: number): Promise<void> {
    if (!(await clearAlertConfig(this.pool, jobId))) throw notFound(`job ${jobId} not found`);
  }

  async history(jobId: number, limit: number): Promise<AlertHistoryItem[]> {
    if (!(await findJob(this.pool, jobId))) throw notFound(`job ${jobId} not found`);
    const entries = await listJobAlerts(this.pool, jobId, limit);
    return entries.map((entry) => ({
      ...entry,
      destinationName: destinationName(entry.channel, entry.destination),
    }));
  }

  /**
   * Applies the config file's shortcuts after its jobs: a job whose entry declares shortcuts gets
   * exactly those (the file wins, as it does for the job's fields); a job whose entry declares none
   * loses what an earlier version of the file gave it, but keeps a configuration set through the API.
   */
  async applyDeclared(declared: DeclaredAlerts[]): Promise<void> {
    await withTransaction(this.pool, async (tx) => {
      for (const { jobName, config } of declared) {
        const job = await findJobByName(tx, jobName);
        if (!job) continue;
        if (config) await saveAlertConfig(tx, job.id, config, 'config');
        else await deleteAlertConfig(tx, job.id, 'config');
      }
    });
  }

  /**
   * Like `checkAddresses`, and a host name that resolves into a denied range (`localhost`) is
   * refused too, so the caller hears of it now rather than from a failed delivery later.
   */
  async checkResolvedAddresses(config: AlertConfig): Promise<void> {
    const denied = await Promise.all(
      config.webhooks.map((webhook) => this.policy.deniedTarget(new URL(webhook.url))),
    );
    denied.forEach((address, index) => {
      if (address) {
        throw invalid(
          `webhooks.${index}.url: ${address} is in a range that SERVICE_WEBHOOK_DENY_CIDRS denies`,
        );
      }
    });
  }

  /**
   * A URL whose host is an address in SERVICE_WEBHOOK_DENY_CIDRS is refused up front, and so is a
   * webhook its format cannot use (a PagerDuty URL without its routing key).
   */
  checkAddresses(config: AlertConfig): void {
    checkWebhookChannels(config);
    config.webhooks.forEach((webhook, index) => {
      const denied = this.policy.deniedLiteral(new URL(webhook.url));
      if (denied) {
        throw invalid(
          `webhooks.${index}.url: ${denied} is in a range that SERVICE_WEBHOOK_DENY_CIDRS denies`,
        );
      }
    });
  }
}

/**
 * JSON with every object's keys sorted: a policy comes back from the database with its keys in
 * jsonb's order, not in the order the cluster's resources give them.
 */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => a.localeCompare(b)))
      : inner,
  );
}
