/**
 * `crondeck serve` listens without SERVICE_API_TOKEN only where no other machine can reach it: a
 * loopback address, or a name every address of which is loopback. A name is judged by what it
 * resolves to (`localhost` included), never by its spelling.
 */
import type { LookupAddress } from 'node:dns';
import { assertSafeListenAddress, type LookupAll } from '../../src/config/listenAddress';

/** A resolver that knows only `names`. */
function resolverOf(names: Record<string, string[]>): LookupAll {
  return async (host) => {
    const addresses = names[host];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

const noLookups: LookupAll = () => {
  throw new Error('an address needs no lookup');
};

describe('the listen address guard', () => {
  it('allows loopback addresses without a token, with no lookup', async () => {
    for (const host of ['127.0.0.1', '127.8.9.10', '::1', '[::1]', '::ffff:127.0.0.1']) {
      await expect(assertSafeListenAddress(host, null, false, noLookups)).resolves.toBeUndefined();
    }
  });

  it('refuses another address without a token unless --insecure', async () => {
    for (const host of ['0.0.0.0', '::', '10.0.0.5', '::ffff:10.0.0.5', '2001:db8::1']) {
      await expect(assertSafeListenAddress(host, null, false, noLookups)).rejects.toThrow(
        `refusing to listen on ${host} without SERVICE_API_TOKEN`,
      );
    }
    await expect(
      assertSafeListenAddress('0.0.0.0', 'a-long-enough-token', false, noLookups),
    ).resolves.toBeUndefined();
    await expect(assertSafeListenAddress('0.0.0.0', null, true, noLookups)).resolves.toBeUndefined();
  });

  it('allows a name whose every address is loopback', async () => {
    const lookup = resolverOf({ localhost: ['::1', '127.0.0.1'], 'api.internal': ['127.0.1.1'] });
    await expect(assertSafeListenAddress('localhost', null, false, lookup)).resolves.toBeUndefined();
    await expect(assertSafeListenAddress('api.internal', null, false, lookup)).resolves.toBeUndefined();
  });

  it('refuses `localhost` where it resolves to an address other machines reach', async () => {
    const lookup = resolverOf({ localhost: ['127.0.0.1', '192.0.2.7'] });
    await expect(assertSafeListenAddress('localhost', null, false, lookup)).rejects.toThrow(
      'refusing to listen on localhost without SERVICE_API_TOKEN: it resolves to 192.0.2.7, which is not a loopback address; set a token, or pass --insecure if something in front of the service authenticates',
    );
    await expect(
      assertSafeListenAddress('localhost', 'a-long-enough-token', false, lookup),
    ).resolves.toBeUndefined();
  });

  it('refuses a name that does not resolve, saying so', async () => {
    await expect(assertSafeListenAddress('nowhere.invalid', null, false, resolverOf({}))).rejects.toThrow(
      'refusing to listen on nowhere.invalid without SERVICE_API_TOKEN: it does not resolve (getaddrinfo ENOTFOUND nowhere.invalid)',
    );
  });

  it('resolves names with the system resolver by default', async () => {
    // `localhost` resolves to loopback on this machine (the test's premise, checked first).
    const { lookup } = await import('node:dns/promises');
    const addresses = await lookup('localhost', { all: true });
    expect(addresses.every(({ address }) => address === '::1' || address.startsWith('127.'))).toBe(true);
    await expect(assertSafeListenAddress('localhost', null, false)).resolves.toBeUndefined();
  });
});
