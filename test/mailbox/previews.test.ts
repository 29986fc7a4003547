import { startTestService, type TestService } from '../support/service';
import { MailboxClient } from './mailboxClient';

/** Previews count characters as Unicode code points: 200 of them, whatever their encoded size. */
describe('previews of long and non-ASCII bodies', () => {
  let service: TestService;
  let api: MailboxClient;
  let label: number;
  beforeAll(async () => {
    service = await startTestService();
    api = new MailboxClient(service);
    label = await api.createLabel('previews');
  });
  afterAll(async () => {
    await service.stop();
  });

  const draftPreview = async (text_body: string) => {
    const identity_id = Math.floor(Math.random() * 1e9) + 1;
    await api.createDraft({ identity_id, text_body });
    return (await api.get(`/api/drafts?identity_id=${identity_id}`)).body[0].preview as string;
  };
  const messagePreview = async (text_body: string) => {
    const id = await api.createMessage({ text_body });
    await api.label(label, id);
    const listed = (await api.get(`/api/labels/${label}/messages?limit=1`)).body[0];
    expect(listed.id).toBe(id);
    return { preview: listed.preview as string, full: (await api.get(`/api/messages/${id}`)).body };
  };

  const cases: [string, string, string][] = [
    ['ASCII', 'a'.repeat(1000), 'a'.repeat(200)],
    ['two-byte letters', 'é'.repeat(300), 'é'.repeat(200)],
    ['CJK (three bytes each)', '漢字'.repeat(150), '漢字'.repeat(100)],
    ['emoji outside the BMP (two UTF-16 units, four bytes)', '😀'.repeat(300), '😀'.repeat(200)],
    ['an emoji straddling the limit', 'x'.repeat(199) + '🎉🎉', 'x'.repeat(199) + '🎉'],
    [
      'mixed scripts',
      'Ωμέγα 😀 中文 '.repeat(40),
      Array.from('Ωμέγα 😀 中文 '.repeat(40)).slice(0, 200).join(''),
    ],
    ['exactly 200', 'b'.repeat(200), 'b'.repeat(200)],
    ['shorter than 200', 'short 😀', 'short 😀'],
    // Grapheme clusters are not kept whole: a ZWJ family is five code points.
    ['a ZWJ sequence cut between code points', 'y'.repeat(198) + '👨‍👩‍👧', 'y'.repeat(198) + '👨\u200d'],
  ];

  for (const [name, body, preview] of cases) {
    it(`drafts: ${name}`, async () => {
      expect(await draftPreview(body)).toBe(preview);
    });
    it(`messages: ${name}`, async () => {
      const result = await messagePreview(body);
      expect(result.preview).toBe(preview);
      expect(result.full.preview).toBe(preview);
      expect(result.full.text_body).toBe(body);
    });
  }

  it('keeps a body of nearly 1 MiB whole, with a 200 character preview', async () => {
    const body = 'Lorem ipsum dolor sit amet, 😀 ünïcödé. '.repeat(20000).slice(0, 900_000);
    const result = await messagePreview(body);
    expect(result.full.text_body).toBe(body);
    expect(Array.from(result.preview)).toHaveLength(200);
    expect(body.startsWith(result.preview)).toBe(true);
  });

  it('previews an RFC 822 source of several megabytes', async () => {
    const text = '€uro '.repeat(1_000_000);
    const source = `Subject: big\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${text}`;
    const created = await api.expect(201, 'POST', '/api/messages?identity_id=1', source, {
      'content-type': 'message/rfc822',
    });
    const message = (await api.get(`/api/messages/${created.body.id}`)).body;
    expect(message.preview).toBe(text.slice(0, 200));
    expect(message.size).toBe(Buffer.byteLength(source));
    expect(message.text_body.length).toBeGreaterThanOrEqual(text.length - 2);
  });

  it('stores a lone surrogate as U+FFFD, counted once', async () => {
    const id = await api.createMessage({ text_body: 'a\ud800b' });
    expect((await api.get(`/api/messages/${id}`)).body).toMatchObject({ text_body: 'a\ufffdb' });
  });
});
