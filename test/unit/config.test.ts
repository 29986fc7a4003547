import { readEnvironment } from '../../src/config/environment';
import { parseJobsFile } from '../../src/config/jobsFile';
import { assertSafeListenAddress } from '../../src/config/listenAddress';

describe('environment', () => {
  it('has the documented defaults', () => {
    expect(readEnvironment({})).toMatchObject({
      port: 7433,
      host: '127.0.0.1',
      databaseUrl: null,
      apiToken: null,
      defaultTimeZone: 'UTC',
      retentionDays: 90,
      smtp: null,
    });
  });

  it('reads SMTP settings only with a host, with the spec defaults', () => {
    expect(readEnvironment({ SERVICE_SMTP_HOST: 'mail.example.com' }).smtp).toEqual({
      host: 'mail.example.com',
      port: 587,
      secure: false,
      from: 'service@localhost',
      username: null,
      password: null,
    });
    expect(
      readEnvironment({ SERVICE_SMTP_HOST: 'm', SERVICE_SMTP_SECURE: 'true', SERVICE_SMTP_PORT: '465' }).smtp,
    ).toMatchObject({ secure: true, port: 465 });
  });

  it('names every bad variable', () => {
    expect(() => readEnvironment({ PORT: 'eighty', SERVICE_TIMEZONE: 'Nowhere/Land' })).toThrow(
      /PORT: .*; SERVICE_TIMEZONE: must be an IANA time zone name/,
    );
    expect(() => readEnvironment({ SERVICE_API_TOKEN: 'short' })).toThrow(
      /SERVICE_API_TOKEN: must be at least 16/,
    );
  });
});

describe('listen address guard', () => {
  it('allows loopback without a token', () => {
    for (const host of ['127.0.0.1', 'localhost', '::1'])
      expect(() => assertSafeListenAddress(host, null, false)).not.toThrow();
  });

  it('refuses another address without a token unless --insecure', () => {
    expect(() => assertSafeListenAddress('0.0.0.0', null, false)).toThrow(/refusing to listen on 0.0.0.0/);
    expect(() => assertSafeListenAddress('0.0.0.0', 'a-long-enough-token', false)).not.toThrow();
    expect(() => assertSafeListenAddress('0.0.0.0', null, true)).not.toThrow();
  });
});

describe('jobs file', () => {
  it('reads YAML and JSON with the job fields', () => {
    const yaml = `jobs:
  - name: backup
    schedule: "0 2 * * *"
    command: pg_dump mydb > /backups/db.sql
    timeout: 600
    retry: { maxAttempts: 2, baseDelay: 30 }
    timezone: Europe/Berlin
    on_failure: https://hooks.example.com/x
`;
    const [job] = parseJobsFile(yaml, 'jobs.yaml');
    expect(job?.input).toMatchObject({
      name: 'backup',
      timeout: 600,
      retry: { maxAttempts: 2, baseDelay: 30 },
    });
    expect(job?.raw.on_failure).toBe('https://hooks.example.com/x');
    const json = JSON.stringify({ jobs: [{ name: 'a', schedule: '@daily', command: 'true' }] });
    expect(parseJobsFile(json, 'jobs.json')).toHaveLength(1);
  });

  it('names the job and the field of a bad entry', () => {
    const yaml = `jobs:
  - { name: good, schedule: "* * * * *", command: "true" }
  - { name: bad, schedule: "61 * * * *", command: "true" }
`;
    expect(() => parseJobsFile(yaml, 'jobs.yaml')).toThrow(
      'jobs.yaml: job "bad": schedule: minute value 61 is out of range 0-59',
    );
    expect(() => parseJobsFile('jobs:\n  - { schedule: "* * * * *" }\n', 'j.yaml')).toThrow(
      'j.yaml: job #1: name: ',
    );
  });

  it('refuses a name declared twice, a file without a jobs list, and broken syntax', () => {
    const twice =
      'jobs:\n  - { name: a, schedule: "@daily", command: "true" }\n  - { name: a, schedule: "@daily", command: "true" }\n';
    expect(() => parseJobsFile(twice, 'j.yaml')).toThrow('job "a": name is declared twice');
    expect(() => parseJobsFile('hello: world\n', 'j.yaml')).toThrow('j.yaml: jobs: jobs must be a list');
    expect(() => parseJobsFile('jobs: [', 'j.yaml')).toThrow('j.yaml: not valid YAML');
    expect(() => parseJobsFile('{', 'j.json')).toThrow('j.json: not valid JSON');
  });
});
