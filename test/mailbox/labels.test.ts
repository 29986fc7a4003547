import { startTestService, type TestService } from '../support/service';
import { MailboxClient } from './mailboxClient';

describe('labels API', () => {
  let service: TestService;
  let api: MailboxClient;
  beforeAll(async () => {
    service = await startTestService();
    api = new MailboxClient(service);
  });
  afterAll(async () => {
    await service.stop();
  });

  const listed = async () => (await api.get('/api/labels')).body as Record<string, unknown>[];
  const byName = async (name: string) => (await listed()).find((label) => label.name === name);

  it('creates a label with defaults and lists it with counts', async () => {
    const created = await api.expect(201, 'POST', '/api/labels', { name: 'Receipts' });
    expect(created.body).toEqual({ id: expect.any(Number) });
    expect(await byName('Receipts')).toEqual({
      id: created.body.id,
      name: 'Receipts',
      color: null,
      icon: null,
      source: 'user',
      created_at: expect.stringMatching(/Z$/),
      message_count: 0,
      unread_count: 0,
    });
  });

  it('keeps color, icon and source given at creation', async () => {
    await api.createLabel('Travel', { color: '#00aaff', icon: '✈️', source: 'imap' });
    expect(await byName('Travel')).toMatchObject({ color: '#00aaff', icon: '✈️', source: 'imap' });
  });

  it('lists labels by name, case-insensitively', async () => {
    for (const name of ['zeta', 'Alpha', 'beta', 'Gamma']) await api.createLabel(`order-${name}`);
    const names = (await listed())
      .map((label) => label.name)
      .filter((name) => String(name).startsWith('order-'));
    expect(names).toEqual(['order-Alpha', 'order-beta', 'order-Gamma', 'order-zeta']);
  });

  it('counts messages and unread messages per label', async () => {
    const label = await api.createLabel('Counted');
    const seen = await api.createMessage({ flags: ['\\Seen'] });
    const seenAndFlagged = await api.createMessage({ flags: ['\\Flagged', '\\Seen'] });
    const noFlags = await api.createMessage({ flags: null });
    const emptyFlags = await api.createMessage({ flags: [] });
    const flaggedOnly = await api.createMessage({ flags: ['\\Flagged'] });
    const lowercase = await api.createMessage({ flags: ['\\seen'] });
    for (const message of [seen, seenAndFlagged, noFlags, emptyFlags, flaggedOnly, lowercase]) {
      await api.label(label, message);
    }
    // Unread: flags null or without \Seen (exactly as written; \seen is another flag).
    expect(await byName('Counted')).toMatchObject({ message_count: 6, unread_count: 4 });
  });

  it('rejects a duplicate name with 409 and writes nothing', async () => {
    await api.createLabel('Unique');
    expect((await api.expect(409, 'POST', '/api/labels', { name: 'Unique' })).body).toEqual({
      error: 'Label already exists',
    });
    expect((await listed()).filter((label) => label.name === 'Unique')).toHaveLength(1);
  });

  it('trims names, so that a copy with spaces around is the same name', async () => {
    await api.createLabel('  Spaced  ');
    expect(await byName('Spaced')).toBeDefined();
    await api.expect(409, 'POST', '/api/labels', { name: 'Spaced ' });
  });

  it('treats names as case-sensitive', async () => {
    await api.createLabel('Case');
    await api.createLabel('case');
  });

  it('updates only the keys present among name, color and icon', async () => {
    const id = await api.createLabel('Before', { color: 'red', icon: 'star', source: 'imap' });
    expect((await api.expect(200, 'PUT', `/api/labels/${id}`, { color: 'blue' })).body).toEqual({ ok: true });
    expect(await byName('Before')).toMatchObject({ color: 'blue', icon: 'star', source: 'imap' });
    await api.expect(200, 'PUT', `/api/labels/${id}`, { name: 'After', icon: null, source: 'ignored' });
    expect(await byName('Before')).toBeUndefined();
    expect(await byName('After')).toMatchObject({ id, color: 'blue', icon: null, source: 'imap' });
  });

  it('answers 409 when renaming onto an existing name, and keeps both labels', async () => {
    const first = await api.createLabel('Rename-1');
    await api.createLabel('Rename-2');
    expect((await api.expect(409, 'PUT', `/api/labels/${first}`, { name: 'Rename-2' })).body).toEqual({
      error: 'Label already exists',
    });
    expect(await byName('Rename-1')).toBeDefined();
    await api.expect(200, 'PUT', `/api/labels/${first}`, { name: 'Rename-1' });
  });

  it('rejects invalid values on update', async () => {
    const id = await api.createLabel('Validated');
    const cases: [Record<string, unknown>, string][] = [
      [{ name: '' }, 'name: must be a non-empty string'],
      [{ name: '   ' }, 'name: must be a non-empty string'],
      [{ name: null }, 'name: must be a non-empty string'],
      [{ name: 7 }, 'name: must be a non-empty string'],
      [{ color: 7 }, 'color: must be a string or null'],
      [{ icon: {} }, 'icon: must be a string or null'],
      [{ name: 'x'.repeat(201) }, 'name: must be at most 200 characters'],
    ];
    for (const [body, error] of cases) {
      expect((await api.expect(400, 'PUT', `/api/labels/${id}`, body)).body).toEqual({ error });
    }
    expect(await byName('Validated')).toBeDefined();
  });

  it('rejects invalid values on creation, with the field named', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 5 }, 'name: must be a string'],
      [{ name: ['x'] }, 'name: must be a string'],
      [{ name: 'ok', color: 1 }, 'color: must be a string or null'],
      [{ name: 'ok', source: 3 }, 'source: must be a string'],
      [{ name: 'ok', source: ' ' }, 'source: must not be empty'],
      [{ name: 'x'.repeat(201) }, 'name: must be at most 200 characters'],
      [{ name: 'nul\u0000' }, 'name: must not contain NUL characters'],
    ];
    for (const [body, error] of cases) {
      expect((await api.expect(400, 'POST', '/api/labels', body)).body).toEqual({ error });
    }
    expect(await byName('ok')).toBeUndefined();
  });

  it('accepts 200 characters counted in code points', async () => {
    await api.createLabel('😀'.repeat(200));
    await api.expect(400, 'POST', '/api/labels', { name: '😀'.repeat(201) });
  });

  it('deletes a label together with its links to messages', async () => {
    const doomed = await api.createLabel('Doomed');
    const kept = await api.createLabel('Kept');
    const message = await api.createMessage();
    await api.label(doomed, message);
    await api.label(kept, message);
    expect((await api.expect(200, 'DELETE', `/api/labels/${doomed}`)).body).toEqual({ ok: true });
    expect(await byName('Doomed')).toBeUndefined();
    const { rows } = await service.db.pool.query(
      'SELECT label_id FROM mail_message_labels WHERE message_id = $1',
      [message],
    );
    expect(rows).toEqual([{ label_id: kept }]);
    expect((await api.get(`/api/messages/${message}`)).body.labels.map((l: { id: number }) => l.id)).toEqual([
      kept,
    ]);
    expect((await api.get(`/api/labels/${kept}/related`)).body).toEqual([]);
    await api.expect(404, 'DELETE', `/api/labels/${doomed}`);
  });
});
