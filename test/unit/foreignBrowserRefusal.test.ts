import type { IncomingMessage } from 'node:http';
import { foreignBrowserRefusal } from '../../src/http/localBrowsersOnly';

/** A request as the guard reads it: its Host and Origin, and the address it came in on. */
function request(headers: { host?: string; origin?: string }, localAddress = '127.0.0.1'): IncomingMessage {
  return { headers, socket: { localAddress } } as unknown as IncomingMessage;
}

const refused = (headers: { host?: string; origin?: string }, localAddress?: string) =>
  foreignBrowserRefusal(request(headers, localAddress));

describe('which requests a service without an API token answers', () => {
  it.each([
    'localhost',
    'localhost:7433',
    'LOCALHOST:7433',
    '127.0.0.1:7433',
    '127.1.2.3',
    '[::1]:7433',
    '[::1]',
  ])('answers the loopback Host %s', (host) => {
    expect(refused({ host })).toBeNull();
  });

  it.each([
    ['192.168.1.5:7433', '192.168.1.5'],
    ['192.168.1.5', '::ffff:192.168.1.5'],
    ['[fd00::5]:7433', 'fd00::5'],
  ])('answers the Host %s that names the address the connection came in on (%s)', (host, localAddress) => {
    expect(refused({ host }, localAddress)).toBeNull();
  });

  it.each([
    'attacker.example',
    'attacker.example:7433',
    'localhost.attacker.example:7433',
    '127.0.0.1.nip.io:7433',
    'crondeck.local:7433',
    '192.168.1.6:7433',
    '[::1',
    '',
  ])('refuses the Host %j, naming it and SERVICE_API_TOKEN', (host) => {
    const refusal = refused({ host }, '192.168.1.5');
    expect(refusal).toContain(`the Host ${JSON.stringify(host)}`);
    expect(refusal).toContain('DNS rebinding');
    expect(refusal).toContain('set SERVICE_API_TOKEN');
  });

  it('answers a request without Host or Origin (HTTP/1.0, scripts)', () => {
    expect(refused({})).toBeNull();
  });

  it.each([
    'http://localhost',
    'http://localhost:3000',
    'https://localhost:8443',
    'http://127.0.0.1:7433',
    'http://127.9.9.9:1',
    'http://[::1]:5173',
  ])('answers a page on this machine, %s', (origin) => {
    expect(refused({ host: '127.0.0.1:7433', origin })).toBeNull();
  });

  it('answers the service’s own page where it is reached by its address', () => {
    const own = { host: '192.168.1.5:7433', origin: 'http://192.168.1.5:7433' };
    expect(refused(own, '192.168.1.5')).toBeNull();
    expect(refused({ ...own, origin: 'http://192.168.1.5:8080' }, '192.168.1.5')).toContain('refused');
  });

  it.each([
    'https://attacker.example',
    'http://attacker.example:7433',
    'http://localhost.attacker.example',
    'http://127.0.0.1.nip.io',
    'http://192.168.1.5:7433',
    'null',
    'file://',
    'chrome-extension://abcdef',
    'http://\u00ff',
    'not an origin',
  ])('refuses a page on %j, naming it and SERVICE_API_TOKEN', (origin) => {
    const refusal = refused({ host: '127.0.0.1:7433', origin });
    expect(refusal).toContain(`a page on ${JSON.stringify(origin)}`);
    expect(refusal).toContain('set SERVICE_API_TOKEN');
  });
});
