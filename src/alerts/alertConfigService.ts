import type { Pool } from 'pg';
import type { AlertConfig } from '../domain/alertConfig';
import { invalid, notFound } from '../domain/errors';
import { withTransaction } from '../store/database';
import { findJob, findJobByName } from '../store/jobs';
import {
  type AlertHistoryEntry,
  clearAlertConfig,
  deleteAlertConfig,
  listJobAlerts,
  readJobAlertConfig,
  saveAlertConfig,
} from '../store/alerts';
import type { WebhookAddressPolicy } from './addressPolicy';
import type { AlertsApi } from './routes';

/** A config-file job's alert shortcuts, already checked: null when the entry declares none. */
export interface DeclaredAlerts {
  jobName: string;
  config: AlertConfig | null;
}

/** Reading and replacing alert configurations: the API's use cases and the config file's. */
export class AlertConfigService implements AlertsApi {
  constructor(
    private readonly pool: Pool,
    private readonly policy: WebhookAddressPolicy,
  ) {}

  async get(jobId: number): Promise<AlertConfig> {
    const config = await readJobAlertConfig(this.pool, jobId);
    if (!config) throw notFound(`job ${jobId} not found`);
    return config;
  }

  async replace(jobId: number, config: AlertConfig): Promise<AlertConfig> {
    await this.checkResolvedAddresses(config);
    if (!(await saveAlertConfig(this.pool, jobId, config, 'api'))) throw notFound(`job ${jobId} not found`);
    return config;
  }

  async remove(jobId: number): Promise<void> {
    if (!(await clearAlertConfig(this.pool, jobId))) throw notFound(`job ${jobId} not found`);
  }

  async history(jobId: number, limit: number): Promise<AlertHistoryEntry[]> {
    if (!(await findJob(this.pool, jobId))) throw notFound(`job ${jobId} not found`);
    return listJobAlerts(this.pool, jobId, limit);
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

  /** A URL whose host is an address in SERVICE_WEBHOOK_DENY_CIDRS is refused up front. */
  checkAddresses(config: AlertConfig): void {
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
