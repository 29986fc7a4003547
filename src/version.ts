import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The package version, shown by `service_info{version}` and the logs. */
export const VERSION: string = (
  JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }
).version;
