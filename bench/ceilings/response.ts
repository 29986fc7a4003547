import { readFileSync } from 'node:fs';

/**
 * What a ceiling server answers: exactly the bytes (and content type) that the endpoint under test
 * answered, so the ceiling and the service move the same payload. The parent passes it through the
 * environment: the body as a file, since it can be hundreds of kilobytes.
 */
export interface CeilingResponse {
  path: string;
  method: string;
  status: number;
  contentType: string;
  body: Buffer;
}

export function readCeilingResponse(env: NodeJS.ProcessEnv = process.env): CeilingResponse {
  const bodyFile = env.CEILING_BODY_FILE;
  if (!bodyFile) throw new Error('CEILING_BODY_FILE is not set: ceilings are started by bench/harness.ts');
  return {
    path: env.CEILING_PATH ?? '/',
    method: (env.CEILING_METHOD ?? 'GET').toUpperCase(),
    status: Number(env.CEILING_STATUS ?? 200),
    contentType: env.CEILING_CONTENT_TYPE ?? 'application/json; charset=utf-8',
    body: readFileSync(bodyFile),
  };
}

/**
 * Tells the parent (bench/harness.ts) which port the ceiling listens on, and ends the ceiling when
 * the parent goes away, whatever way it went.
 */
export function announcePort(port: number): void {
  if (!process.send) {
    process.stdout.write(`listening on ${port}\n`);
    return;
  }
  process.send({ port });
  process.once('disconnect', () => process.exit(0));
}
