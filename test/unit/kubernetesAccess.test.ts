import {
  JOB_REQUESTS,
  jobAttributes,
  nonResourceAttributes,
  nonResourceVerb,
  scheduledJobsAttributes,
} from '../../src/auth/accessRules';
import { MAX_TOKEN_BYTES, readBearerToken } from '../../src/auth/bearerToken';
import { forbiddenMessage, unseenMessage } from '../../src/auth/forbiddenMessages';

/** SERVICE_AUTH=kubernetes: what each request is checked on, and how a refusal reads. */
describe('the access a request needs', () => {
  const target = { namespace: 'team-a', name: 'nightly', watched: false };

  it('derives the verb of a non-resource request from its method, as the API server does', () => {
    expect(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].map(nonResourceVerb)).toEqual([
      'get',
      'head',
      'post',
      'put',
      'patch',
      'delete',
      'options',
    ]);
  });

  it('checks a request about no namespace as its path under /crondeck, outside the API server’s own URLs', () => {
    expect(nonResourceAttributes('POST', '/api/scheduler/pause')).toEqual({
      kind: 'nonResource',
      verb: 'post',
      path: '/crondeck/api/scheduler/pause',
    });
    expect(nonResourceAttributes('GET', '/api/labels/3/messages').path).toBe(
      '/crondeck/api/labels/3/messages',
    );
    // What Kubernetes' system:discovery grants every authenticated user `get` on: none of it may
    // match a path Crondeck checks (as the API server matches a rule: exact, or a prefix before `*`).
    const discovery = ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*'];
    const matches = (rule: string, path: string) =>
      rule.endsWith('*') ? path.startsWith(rule.slice(0, -1)) : rule === path;
    for (const path of [
      '/api/scheduler/status',
      '/api/drafts',
      '/api/labels',
      '/api/messages/1',
      '/api/cron/describe',
    ]) {
      const checked = nonResourceAttributes('GET', path);
      expect([path, discovery.filter((rule) => matches(rule, checked.path))]).toEqual([path, []]);
    }
  });

  it("checks each request about one job on its ScheduledJob, its run subresource or its namespace's AlertConfigs", () => {
    const checked = JOB_REQUESTS.map(({ method, path, need }) => [
      `${method.toUpperCase()} ${path}`,
      need.verbs.map((verb) => jobAttributes(need.resource, verb, target)),
    ]);
    const sj = (verb: string) => ({
      kind: 'resource',
      verb,
      group: 'crondeck.dev',
      resource: 'scheduledjobs',
      namespace: 'team-a',
      name: 'nightly',
    });
    const run = { ...sj('create'), subresource: 'run' };
    const alerts = (verb: string) => ({
      kind: 'resource',
      verb,
      group: 'crondeck.dev',
      resource: 'alertconfigs',
      namespace: 'team-a',
    });
    expect(checked).toEqual([
      ['GET /jobs/:id', [sj('get')]],
      ['PUT /jobs/:id', [sj('update'), sj('patch')]],
      ['DELETE /jobs/:id', [sj('delete')]],
      ['PATCH /jobs/:id/toggle', [sj('update'), sj('patch')]],
      ['POST /jobs/:id/run', [run]],
      ['POST /jobs/:id/backfill', [run]],
      ['GET /jobs/:id/slots', [sj('get')]],
      ['GET /jobs/:id/alerts', [alerts('get')]],
      ['GET /jobs/:id/alerts/history', [alerts('get')]],
      ['PUT /jobs/:id/alerts', [alerts('update')]],
      ['DELETE /jobs/:id/alerts', [alerts('update')]],
    ]);
  });

  it("checks each request about a watched CronJob's job on the CronJob, its Jobs, or the namespace's CronJobWatches", () => {
    const watched = { namespace: 'team-a', name: 'db-dump', watched: true };
    const checked = JOB_REQUESTS.map(({ method, path, watched: need }) => [
      `${method.toUpperCase()} ${path}`,
      need.verbs.map((verb) => jobAttributes(need.resource, verb, watched)),
    ]);
    const cronJob = (verb: string) => ({
      kind: 'resource',
      verb,
      group: 'batch',
      resource: 'cronjobs',
      namespace: 'team-a',
      name: 'db-dump',
    });
    // A run's Job is named when it is made: the namespace's Jobs, as `kubectl create job --from`.
    const jobs = { kind: 'resource', verb: 'create', group: 'batch', resource: 'jobs', namespace: 'team-a' };
    const watches = (verb: string) => ({
      kind: 'resource',
      verb,
      group: 'crondeck.dev',
      resource: 'cronjobwatches',
      namespace: 'team-a',
    });
    expect(checked).toEqual([
      // PUT and DELETE answer 409 naming the CronJob's owner to whoever may see the job.
      ['GET /jobs/:id', [cronJob('get')]],
      ['PUT /jobs/:id', [cronJob('get')]],
      ['DELETE /jobs/:id', [cronJob('get')]],
      ['PATCH /jobs/:id/toggle', [cronJob('patch')]],
      ['POST /jobs/:id/run', [jobs]],
      ['POST /jobs/:id/backfill', [jobs]],
      ['GET /jobs/:id/slots', [cronJob('get')]],
      ['GET /jobs/:id/alerts', [watches('get')]],
      ['GET /jobs/:id/alerts/history', [watches('get')]],
      ['PUT /jobs/:id/alerts', [watches('update')]],
      ['DELETE /jobs/:id/alerts', [watches('update')]],
    ]);
  });

  it('checks lists and creations in a namespace, or in all of them', () => {
    expect(scheduledJobsAttributes('list', null)).toEqual({
      kind: 'resource',
      verb: 'list',
      group: 'crondeck.dev',
      resource: 'scheduledjobs',
    });
    expect(scheduledJobsAttributes('create', 'team-b')).toMatchObject({
      namespace: 'team-b',
      verb: 'create',
    });
  });
});

describe('a refusal', () => {
  const user = 'system:serviceaccount:a:viewer';

  it('reads as the API server words its own', () => {
    const run = jobAttributes('scheduledjobs/run', 'create', {
      namespace: 'a',
      name: 'nightly',
      watched: false,
    });
    expect(forbiddenMessage(user, run)).toBe(
      'User "system:serviceaccount:a:viewer" cannot create resource "scheduledjobs/run" in API group "crondeck.dev" in the namespace "a"',
    );
    expect(forbiddenMessage(user, scheduledJobsAttributes('list', null))).toBe(
      'User "system:serviceaccount:a:viewer" cannot list resource "scheduledjobs" in API group "crondeck.dev" at the cluster scope',
    );
    // The path as checked: the one a ClusterRole's nonResourceURLs must name.
    expect(forbiddenMessage(user, nonResourceAttributes('DELETE', '/api/drafts/3'))).toBe(
      'User "system:serviceaccount:a:viewer" cannot delete path "/crondeck/api/drafts/3"',
    );
  });

  it('of a job not seen names no namespace', () => {
    expect(unseenMessage(user, 'get', 'scheduledjobs', 'crondeck.dev', 'job 7')).toBe(
      'User "system:serviceaccount:a:viewer" cannot get resource "scheduledjobs" in API group "crondeck.dev" for job 7: ' +
        'it is in a namespace where they may not, or it does not exist',
    );
  });
});

describe('the bearer token of a request', () => {
  it('is read from the header shape alone', () => {
    expect(readBearerToken('Bearer abc.def-ghi_jkl')).toEqual({ token: 'abc.def-ghi_jkl' });
    expect(readBearerToken('bearer  xyz ')).toEqual({ token: 'xyz' });
    expect(readBearerToken('Bearer not a token')).toMatchObject({
      refusal: expect.stringMatching(/^malformed/),
    });
    expect(readBearerToken('Basic dXNlcjpwYXNz')).toMatchObject({
      refusal: expect.stringMatching(/^malformed/),
    });
    expect(readBearerToken(undefined)).toMatchObject({
      refusal: expect.stringMatching(/^missing bearer token/),
    });
    expect(readBearerToken('  ')).toMatchObject({ refusal: expect.stringMatching(/^missing bearer token/) });
  });

  it(`is at most ${MAX_TOKEN_BYTES} bytes`, () => {
    expect(readBearerToken(`Bearer ${'a'.repeat(MAX_TOKEN_BYTES)}`)).toEqual({
      token: 'a'.repeat(MAX_TOKEN_BYTES),
    });
    const tooLong = { refusal: `the bearer token is longer than ${MAX_TOKEN_BYTES} bytes` };
    expect(readBearerToken(`Bearer ${'a'.repeat(MAX_TOKEN_BYTES + 1)}`)).toEqual(tooLong);
    expect(readBearerToken(`Bearer ${'a'.repeat(1 << 20)}`)).toEqual(tooLong);
  });
});
