import { startTestService, type TestService } from '../support/service';
import { MailboxClient } from './mailboxClient';

const ALL_FIELDS = {
  to_addresses: 'ann@example.com, bob@example.com',
  cc_addresses: 'carl@example.com',
  bcc_addresses: 'dora@example.com',
  subject: 'Quarterly report',
  text_body: 'Hello,\n\nplease find the report attached.',
  html_body: '<p>Hello,</p><p>please find the report attached.</p>',
  in_reply_to: '<original@example.com>',
  references: '<thread@example.com> <original@example.com>',
  original_message_id: 42,
  compose_mode: 'reply',
};

describe('drafts API', () => {
  let service: TestService;
  let api: MailboxClient;
  beforeAll(async () => {
    service = await startTestService();
    api = new MailboxClient(service);
  });
  afterAll(async () => {
    await service.stop();
  });

  it('creates a draft with every field and reads it back', async () => {
    const created = await api.expect(201, 'POST', '/api/drafts', { identity_id: 7, ...ALL_FIELDS });
    expect(created.body).toEqual({ id: expect.any(Number) });
    const { body } = await api.get(`/api/drafts/${created.body.id}`);
    expect(body).toEqual({
      id: created.body.id,
      identity_id: 7,
      ...ALL_FIELDS,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: body.created_at,
    });
  });

  it('creates a draft from identity_id alone: other fields null, compose_mode new', async () => {
    const id = await api.createDraft({ identity_id: 8 });
    const { body } = await api.get(`/api/drafts/${id}`);
    expect(body).toMatchObject({
      identity_id: 8,
      to_addresses: null,
      cc_addresses: null,
      bcc_addresses: null,
      subject: null,
      text_body: null,
      html_body: null,
      in_reply_to: null,
      references: null,
      original_message_id: null,
      compose_mode: 'new',
    });
  });

  it('reads an explicit null compose_mode on creation as the default', async () => {
    const id = await api.createDraft({ identity_id: 8, compose_mode: null });
    expect((await api.get(`/api/drafts/${id}`)).body.compose_mode).toBe('new');
  });

  it('lists one identity, newest update first, with a preview and without bodies', async () => {
    const first = await api.createDraft({ identity_id: 20, subject: 'first', text_body: 'one' });
    const second = await api.createDraft({ identity_id: 20, subject: 'second', html_body: '<b>two</b>' });
    await api.createDraft({ identity_id: 21, subject: 'someone else' });
    let list = (await api.get('/api/drafts?identity_id=20')).body;
    expect(list.map((d: { id: number }) => d.id)).toEqual([second, first]);
    expect(Object.keys(list[0]).sort()).toEqual(
      [
        'id',
        'identity_id',
        'to_addresses',
        'cc_addresses',
        'bcc_addresses',
        'subject',
        'preview',
        'compose_mode',
        'original_message_id',
        'created_at',
        'updated_at',
      ].sort(),
    );
    expect(list[1]).toMatchObject({ subject: 'first', preview: 'one' });
    expect(list[0].preview).toBeNull();

    await api.expect(200, 'PUT', `/api/drafts/${first}`, { subject: 'first, edited' });
    list = (await api.get('/api/drafts?identity_id=20')).body;
    expect(list.map((d: { id: number }) => d.id)).toEqual([first, second]);
  });

  it('answers an empty list for an identity without drafts', async () => {
    expect((await api.get('/api/drafts?identity_id=999')).body).toEqual([]);
  });

  it('accepts identity_id with surrounding spaces', async () => {
    await api.createDraft({ identity_id: 30 });
    expect((await api.get('/api/drafts?identity_id=%2030%20')).body).toHaveLength(1);
  });

  it('lists by any finite identity_id from 1, as the spec words it: one no draft has lists none', async () => {
    await api.createDraft({ identity_id: 1000, subject: 'thousand' });
    expect(
      (await api.get('/api/drafts?identity_id=1e3')).body.map((d: { subject: string }) => d.subject),
    ).toEqual(['thousand']);
    for (const value of ['1.5', '2147483648', '1e300']) {
      expect((await api.expect(200, 'GET', `/api/drafts?identity_id=${value}`)).body).toEqual([]);
    }
  });

  it('updates only the keys present, ignores other keys and sets updated_at', async () => {
    const id = await api.createDraft({ identity_id: 40, ...ALL_FIELDS });
    const before = (await api.get(`/api/drafts/${id}`)).body;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const updated = await api.expect(200, 'PUT', `/api/drafts/${id}`, {
      subject: 'New subject',
      cc_addresses: null,
      identity_id: 99,
      id: 12345,
      unknown_key: 'ignored',
    });
    expect(updated.body).toEqual({ ok: true });
    const after = (await api.get(`/api/drafts/${id}`)).body;
    expect(after).toEqual({
      ...before,
      subject: 'New subject',
      cc_addresses: null,
      updated_at: expect.any(String),
    });
    expect(after.identity_id).toBe(40);
    expect(Date.parse(after.updated_at)).toBeGreaterThan(Date.parse(before.updated_at));
    expect(after.created_at).toBe(before.created_at);
  });

  it('updates every field at once', async () => {
    const id = await api.createDraft({ identity_id: 41 });
    await api.expect(200, 'PUT', `/api/drafts/${id}`, { ...ALL_FIELDS, compose_mode: 'forward' });
    expect((await api.get(`/api/drafts/${id}`)).body).toMatchObject({
      ...ALL_FIELDS,
      compose_mode: 'forward',
    });
  });

  it('keeps the list preview in step with text_body', async () => {
    const id = await api.createDraft({ identity_id: 42, text_body: 'old body' });
    await api.expect(200, 'PUT', `/api/drafts/${id}`, { text_body: 'new body' });
    expect((await api.get('/api/drafts?identity_id=42')).body[0].preview).toBe('new body');
    await api.expect(200, 'PUT', `/api/drafts/${id}`, { text_body: null });
    expect((await api.get('/api/drafts?identity_id=42')).body[0].preview).toBeNull();
    await api.expect(200, 'PUT', `/api/drafts/${id}`, { subject: 'only the subject' });
    expect((await api.get('/api/drafts?identity_id=42')).body[0].preview).toBeNull();
  });

  it('deletes a draft', async () => {
    const id = await api.createDraft();
    expect((await api.expect(200, 'DELETE', `/api/drafts/${id}`)).body).toEqual({ ok: true });
    await api.expect(404, 'GET', `/api/drafts/${id}`);
    await api.expect(404, 'DELETE', `/api/drafts/${id}`);
  });

  it('accepts every compose mode and rejects others', async () => {
    for (const mode of ['new', 'reply', 'reply_all', 'forward'])
      await api.createDraft({ compose_mode: mode });
    const bad = await api.expect(400, 'POST', '/api/drafts', { identity_id: 1, compose_mode: 'bogus' });
    expect(bad.body).toEqual({ error: 'compose_mode: must be one of new, reply, reply_all, forward' });
    const id = await api.createDraft();
    const nulled = await api.expect(400, 'PUT', `/api/drafts/${id}`, { compose_mode: null });
    expect(nulled.body.error).toBe('compose_mode: must be one of new, reply, reply_all, forward');
  });

  it('rejects fields of the wrong type with the field named, writing nothing', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ subject: 5 }, 'subject: must be a string or null'],
      [{ to_addresses: ['a@example.com'] }, 'to_addresses: must be a string or null'],
      [{ original_message_id: 'x' }, 'original_message_id: must be a positive integer or null'],
      [{ original_message_id: 1.5 }, 'original_message_id: must be a positive integer or null'],
      [{ original_message_id: 0 }, 'original_message_id: must be a positive integer or null'],
      [{ original_message_id: 2147483648 }, 'original_message_id: must be at most 2147483647'],
      [{ text_body: 'nul \u0000 inside' }, 'text_body: must not contain NUL characters'],
    ];
    for (const [fields, error] of cases) {
      const created = await api.expect(400, 'POST', '/api/drafts', { identity_id: 77, ...fields });
      expect(created.body).toEqual({ error });
    }
    expect((await api.get('/api/drafts?identity_id=77')).body).toEqual([]);

    const id = await api.createDraft({ identity_id: 78, subject: 'kept' });
    const updated = await api.expect(400, 'PUT', `/api/drafts/${id}`, {
      subject: 'changed',
      cc_addresses: 3,
    });
    expect(updated.body).toEqual({ error: 'cc_addresses: must be a string or null' });
    expect((await api.get(`/api/drafts/${id}`)).body.subject).toBe('kept');
  });

  it('rejects a body that is not a JSON object', async () => {
    expect((await api.expect(400, 'POST', '/api/drafts', [1, 2])).body).toEqual({
      error: 'request body must be a JSON object',
    });
    expect((await api.expect(400, 'POST', '/api/drafts', '{"identity_id":')).body).toEqual({
      error: 'request body is not valid JSON',
    });
  });

  it('rejects identity_id values that are truthy but not positive integers', async () => {
    for (const identity_id of [-1, 1.5, 'abc', '5', true, 2147483648, [1], { id: 1 }]) {
      const response = await api.expect(400, 'POST', '/api/drafts', { identity_id });
      expect(response.body).toEqual({ error: 'Invalid identity_id: must be a positive integer' });
    }
  });
});
