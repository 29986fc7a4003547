/**
 * The start warns when SERVICE_MAX_CONNECTIONS leaves too few of the process's descriptors for its
 * jobs and its database, from the soft limit /proc says (none where /proc has no word on it).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openFileLimit, warnAboveOpenFileLimit } from '../../src/config/openFileLimit';
import { createMemoryLogger } from '../support/memoryLogger';

const LIMITS = (soft: string, hard: string) =>
  `Limit                     Soft Limit           Hard Limit           Units     \n` +
  `Max processes             95442                95442                processes \n` +
  `Max open files            ${soft.padEnd(21)}${hard.padEnd(21)}files     \n`;

describe('the open-file limit', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'crondeck-limits-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const limitsFile = (text: string) => {
    const file = join(dir, `limits-${Math.random()}`);
    writeFileSync(file, text);
    return file;
  };

  it('is the soft limit of this process, or null where there is none to read', () => {
    expect(openFileLimit(limitsFile(LIMITS('1024', '524288')))).toBe(1024);
    expect(openFileLimit(limitsFile(LIMITS('unlimited', 'unlimited')))).toBeNull();
    expect(openFileLimit(join(dir, 'no-such-file'))).toBeNull();
    expect(openFileLimit()).toEqual(expect.any(Number));
  });

  it('warns at start only when the connections leave fewer than 256 descriptors for the rest', () => {
    const logger = createMemoryLogger();
    warnAboveOpenFileLimit(1000, logger, 1256);
    warnAboveOpenFileLimit(1000, logger, null);
    expect(logger.lines).toEqual([]);
    warnAboveOpenFileLimit(1000, logger, 1024);
    expect(logger.lines).toEqual([
      expect.objectContaining({ level: 'warn', maxConnections: 1000, openFileLimit: 1024, reserved: 256 }),
    ]);
  });
});
