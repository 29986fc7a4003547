import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureChromium, skipNotice } from '../support/chromium';

/**
 * The browser's installation, decided against a fake machine: a PATH holding a fake apt-get that
 * records what it is asked and "installs" chromium at a path of the test's own. The real browser
 * of this machine is never touched.
 */
describe('the dashboard tests’ browser', () => {
  let dir: string;
  let bin: string;
  let browser: string;
  let calls: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'crondeck-chromium-'));
    bin = join(dir, 'bin');
    browser = join(dir, 'usr-bin-chromium');
    calls = join(dir, 'apt-get.calls');
    writeFileSync(calls, '');
    mkdirSync(bin);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A fake apt-get: `update` fetches the lists; `install` works once the lists know the package. */
  const fakeAptGet = ({ listsFetched = true, installs = true } = {}) => {
    const lists = join(dir, 'lists');
    if (listsFetched) writeFileSync(lists, '');
    writeFileSync(
      join(bin, 'apt-get'),
      `#!/bin/sh
echo "$DEBIAN_FRONTEND $*" >> '${calls}'
case "$1" in
  update) : > '${lists}' ;;
  install)
    [ -f '${lists}' ] || { echo "E: Unable to locate package chromium" >&2; exit 100; }
    ${installs ? `: > '${browser}'` : 'echo "E: Sub-process /usr/bin/dpkg returned an error code (1)" >&2; exit 100'} ;;
esac
`,
    );
    chmodSync(join(bin, 'apt-get'), 0o755);
  };
  const aptCalls = () => readFileSync(calls, 'utf8').trim().split('\n').filter(Boolean);
  const ensure = (options: { env?: NodeJS.ProcessEnv; isRoot?: boolean } = {}) => {
    const lines: string[] = [];
    const outcome = ensureChromium({
      env: { PATH: bin, ...options.env },
      isRoot: options.isRoot ?? true,
      defaultPath: browser,
      log: (line) => lines.push(line),
    });
    return outcome.then((result) => ({ result, lines }));
  };

  it('does nothing, and says nothing, when the browser is there', async () => {
    fakeAptGet();
    writeFileSync(browser, '');
    expect(await ensure()).toEqual({ result: { available: true }, lines: [] });
    expect(aptCalls()).toEqual([]);
  });

  it('installs Debian’s chromium when root and apt-get can, saying so in one line', async () => {
    fakeAptGet();
    expect(await ensure()).toEqual({
      result: { available: true },
      lines: ["installing Debian's chromium for the dashboard tests (apt-get install -y chromium)"],
    });
    expect(aptCalls()).toEqual(['noninteractive install -y -qq chromium']);
    expect(existsSync(browser)).toBe(true);
  });

  it('fetches the package lists first only when the package is not known yet', async () => {
    fakeAptGet({ listsFetched: false });
    expect((await ensure()).result).toEqual({ available: true });
    expect(aptCalls()).toEqual([
      'noninteractive install -y -qq chromium',
      'noninteractive update -qq',
      'noninteractive install -y -qq chromium',
    ]);
  });

  it('installs nothing without root, without apt-get, or for a CHROMIUM_PATH that is not there', async () => {
    fakeAptGet();
    expect((await ensure({ isRoot: false })).result).toEqual({
      available: false,
      reason: `Chromium is not installed at ${browser}, and only root can install it here`,
    });
    expect((await ensure({ env: { PATH: join(dir, 'nowhere') } })).result).toEqual({
      available: false,
      reason: `Chromium is not installed at ${browser}, and this machine has no apt-get`,
    });
    const chosen = join(dir, 'my-chromium');
    expect((await ensure({ env: { CHROMIUM_PATH: chosen } })).result).toEqual({
      available: false,
      reason: `CHROMIUM_PATH is ${chosen}, which does not exist`,
    });
    expect(aptCalls()).toEqual([]);
  });

  it('says what apt-get answered when the install fails', async () => {
    fakeAptGet({ installs: false });
    const { result } = await ensure();
    expect(result).toEqual({
      available: false,
      reason: `apt-get install -y chromium did not install ${browser}: E: Sub-process /usr/bin/dpkg returned an error code (1)`,
    });
  });

  it('skips the browser tests with one line saying how to run them, unless the run requires them', () => {
    const missing = { available: false as const, reason: 'Chromium is not installed at /x' };
    expect(skipNotice({ available: true }, {})).toBeNull();
    expect(skipNotice(missing, {})).toBe(
      "dashboard tests skipped: Chromium is not installed at /x. To run them, install Debian's chromium " +
        '(as root: apt-get install -y chromium) or set CHROMIUM_PATH, then npm test again.',
    );
    expect(() => skipNotice(missing, { CRONDECK_REQUIRE_BROWSER: '1' })).toThrow(
      'the dashboard tests need a browser (CRONDECK_REQUIRE_BROWSER is set): Chromium is not installed at /x',
    );
  });
});
