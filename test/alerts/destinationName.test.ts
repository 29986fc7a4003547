import { destinationName } from '../../src/alerts/destinationName';

const SLACK_TOKEN = 'XyZ7qL2mN9pR4sT6uV8wA1bC';

describe('the name an alert destination is shown by', () => {
  it('shows a webhook’s host, port and the words of its path', () => {
    expect(destinationName('webhook', 'https://hooks.example.com/ops')).toBe('hooks.example.com/ops');
    expect(destinationName('webhook', 'http://127.0.0.1:8080/api/v2/alerts/job-42')).toBe(
      '127.0.0.1:8080/api/v2/alerts/job-42',
    );
    expect(destinationName('webhook', 'https://Hooks.Example.com:443/')).toBe('hooks.example.com');
    expect(destinationName('webhook', 'http://[::1]:9000/team_backend/notify.json')).toBe(
      '[::1]:9000/team_backend/notify.json',
    );
  });

  it('tells apart two webhooks to one host', () => {
    const ops = destinationName('webhook', 'https://hooks.example.com/ops');
    const dba = destinationName('webhook', 'https://hooks.example.com/dba');
    expect(ops).not.toBe(dba);
  });

  it('leaves out tokens in the path, the query, the fragment and credentials, with a fingerprint to tell them apart', () => {
    const slack = (token: string) =>
      destinationName('webhook', `https://hooks.slack.com/services/T0123ABCD/B0456EFGH/${token}`);
    expect(slack(SLACK_TOKEN)).toMatch(/^hooks\.slack\.com\/services\/… \[[0-9a-f]{4}\]$/);
    expect(slack(SLACK_TOKEN)).not.toBe(slack('AbC1dEf2GhI3jKl4MnO5pQr6'));
    expect(slack(SLACK_TOKEN)).toBe(slack(SLACK_TOKEN));

    const discord = destinationName(
      'webhook',
      'https://discord.com/api/webhooks/1234567890123456789/Abc-DEF_ghi123JKLmno456PQRstu789',
    );
    expect(discord).toMatch(/^discord\.com\/api\/webhooks\/… \[[0-9a-f]{4}\]$/);

    const queried = destinationName(
      'webhook',
      'https://events.example.com/v2/enqueue?routing_key=R0UT1NGk3y#x',
    );
    expect(queried).toMatch(/^events\.example\.com\/v2\/enqueue\?… \[[0-9a-f]{4}\]$/);
    expect(queried).not.toContain('R0UT1NGk3y');

    const credentials = destinationName('webhook', 'https://alerts:hunter2@receiver.example.com/in');
    expect(credentials).toMatch(/^receiver\.example\.com\/in \[[0-9a-f]{4}\]$/);
    expect(credentials).not.toContain('hunter2');
    expect(credentials).not.toContain('alerts:');

    const guid = destinationName(
      'webhook',
      'https://example.webhook.office.com/webhookb2/0f8fad5b-d9cb-469f-a165-70867728950e@72f988bf-86f1-41af-91ab-2d7cd011db47/IncomingWebhook/9d6a3b2c4e5f40718293a4b5c6d7e8f9/0f8fad5b-d9cb-469f-a165-70867728950e',
    );
    expect(guid).toMatch(/^example\.webhook\.office\.com\/webhookb2\/… \[[0-9a-f]{4}\]$/);
  });

  it('shows an e-mail’s recipients', () => {
    expect(destinationName('email', 'ops@example.com, dba@example.com')).toBe(
      'ops@example.com, dba@example.com',
    );
  });
});
