import { readControllerEnvironment } from '../../src/config/controllerEnvironment';
import { readEnvironment } from '../../src/config/environment';
import { parseJobsFile } from '../../src/config/jobsFile';

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
      readStalenessMs: 10,
    });
  });

  it('reads SERVICE_READ_STALENESS_MS as whole milliseconds from 0 to 1000', () => {
    expect(readEnvironment({ SERVICE_READ_STALENESS_MS: '0' }).readStalenessMs).toBe(0);
    expect(readEnvironment({ SERVICE_READ_STALENESS_MS: '250' }).readStalenessMs).toBe(250);
    expect(() => readEnvironment({ SERVICE_READ_STALENESS_MS: 'soon' })).toThrow(
      'invalid environment: SERVICE_READ_STALENESS_MS: must be a number of milliseconds',
    );
    expect(() => readEnvironment({ SERVICE_READ_STALENESS_MS: '1.5' })).toThrow(
      /whole number of milliseconds/,
    );
    expect(() => readEnvironment({ SERVICE_READ_STALENESS_MS: '-1' })).toThrow(/must be 0 or more/);
    expect(() => readEnvironment({ SERVICE_READ_STALENESS_MS: '5000' })).toThrow(/at most 1000 milliseconds/);
  });

  it('reads SMTP settings only with a host, with the spec defaults', () => {
    expect(readEnvironment({ SERVICE_SMTP_HOST: 'mail.example.com' }).smtp).toEqual({
      host: 'mail.example.com',
      port: 587,
      secure: false,
      from: 'service@localhost',
      username: null,
      password: null,
      allowPlaintextAuth: false,
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

  it('blames a bad --port or --host on the option, not on PORT or HOST', () => {
    expect(() => readEnvironment({}, { port: '99999' })).toThrow(
      'invalid option --port: must be a port number from 0 to 65535',
    );
    expect(() => readEnvironment({ PORT: '8080' }, { port: 'http' })).toThrow(/^invalid option --port: /);
    expect(() => readEnvironment({}, { host: '' })).toThrow('invalid option --host: must not be empty');
    // The option replaces the variable, which is then not read at all.
    expect(readEnvironment({ PORT: 'eighty', HOST: '::1' }, { port: '8080' })).toMatchObject({
      port: 8080,
      host: '::1',
    });
    expect(() => readEnvironment({ PORT: '99999' })).toThrow(
      'invalid environment: PORT: must be a port number from 0 to 65535',
    );
  });
});

describe('controller environment', () => {
  const required = {
    DATABASE_URL: 'postgres://db/crondeck',
    SERVICE_REPORT_SECRET: 'a-report-secret-of-at-least-32-characters',
    CRONDECK_REPORT_URL: 'http://crondeck.crondeck.svc:7433',
  };

  it('reads the job pods’ pull settings, a list of Secret names', () => {
    expect(readControllerEnvironment(required)).toMatchObject({ imagePullSecrets: [] });
    expect(
      readControllerEnvironment({
        ...required,
        CRONDECK_IMAGE_PULL_POLICY: 'Never',
        CRONDECK_IMAGE_PULL_SECRETS: ' regcred, mirror.example ,',
      }),
    ).toMatchObject({ imagePullPolicy: 'Never', imagePullSecrets: ['regcred', 'mirror.example'] });
  });

  it('refuses a pull policy or a Secret name Kubernetes would refuse, naming the variable', () => {
    expect(() => readControllerEnvironment({ ...required, CRONDECK_IMAGE_PULL_POLICY: 'always' })).toThrow(
      'CRONDECK_IMAGE_PULL_POLICY: must be one of Always, IfNotPresent, Never',
    );
    expect(() => readControllerEnvironment({ ...required, CRONDECK_IMAGE_PULL_SECRETS: 'Reg_Cred' })).toThrow(
      'CRONDECK_IMAGE_PULL_SECRETS.0: must be Secret names separated by commas',
    );
  });

  it('keeps the Lease in its own namespace and the jobs in the watched one', () => {
    const scope = (env: Record<string, string>) => {
      const { homeNamespace, watchNamespace, leaseNamespace } = readControllerEnvironment({
        ...required,
        ...env,
      });
      return { homeNamespace, watchNamespace, leaseNamespace };
    };
    expect(scope({ POD_NAMESPACE: 'crondeck' })).toEqual({
      homeNamespace: 'crondeck',
      watchNamespace: 'crondeck',
      leaseNamespace: 'crondeck',
    });
    expect(scope({ POD_NAMESPACE: 'crondeck', CRONDECK_WATCH_NAMESPACE: 'jobs' })).toEqual({
      homeNamespace: 'jobs',
      watchNamespace: 'jobs',
      leaseNamespace: 'crondeck',
    });
    expect(scope({ POD_NAMESPACE: 'crondeck', CRONDECK_WATCH_NAMESPACE: '*' })).toEqual({
      homeNamespace: 'crondeck',
      watchNamespace: null,
      leaseNamespace: 'crondeck',
    });
    expect(scope({})).toEqual({
      homeNamespace: 'default',
      watchNamespace: 'default',
      leaseNamespace: 'default',
    });
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

  it('names the file, the job and the field of text the database cannot hold', () => {
    for (const [field, value] of [
      ['command', '"a\\0b"'],
      ['description', '"a\\0b"'],
    ]) {
      const fields = { name: 'nul', schedule: '"@daily"', command: '"true"', [field!]: value };
      const entry = Object.entries(fields)
        .map(([key, v]) => `${key}: ${v}`)
        .join(', ');
      expect(() => parseJobsFile(`jobs:\n  - { ${entry} }\n`, 'jobs.yaml')).toThrow(
        `jobs.yaml: job "nul": ${field}: must not contain NUL characters`,
      );
    }
    const tags = 'jobs:\n  - { name: t, schedule: "@daily", command: "true", tags: [ok, "x\\0"] }\n';
    expect(() => parseJobsFile(tags, 'jobs.yaml')).toThrow(
      'jobs.yaml: job "t": tags.1: must not contain NUL characters',
    );
    const name = 'jobs:\n  - { name: "a\\0", schedule: "@daily", command: "true" }\n';
    expect(() => parseJobsFile(name, 'jobs.yaml')).toThrow(
      'jobs.yaml: job "a\\u0000": name: must not contain NUL characters',
    );
  });

  it('names the file, the job and the key of a bad alert shortcut', () => {
    const yaml =
      'jobs:\n  - { name: mail, schedule: "@daily", command: "true", on_failure_email: "ops@;x" }\n';
    expect(() => parseJobsFile(yaml, 'jobs.yaml')).toThrow(
      'jobs.yaml: job "mail": on_failure_email.0: must be an e-mail address',
    );
    const nul =
      'jobs:\n  - { name: hook, schedule: "@daily", command: "true", on_failure: "http://h/\\0" }\n';
    expect(() => parseJobsFile(nul, 'jobs.yaml')).toThrow(
      'jobs.yaml: job "hook": on_failure: must not contain',
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
