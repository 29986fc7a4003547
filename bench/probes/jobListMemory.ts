/**
 * `node -r ./test/support/registerTypeScript.js bench/probes/jobListMemory.ts [full|paged]`: the
 * service's peak resident memory (VmHWM) with 1,500 jobs whose fields are all as long as allowed
 * (a 200-character name, a 65,536-character command, a 4,000-character description, 50 tags of 100
 * characters), while the list churns: writers change jobs (each change makes the list's kept
 * rendering stale) while readers read the list, all at once (issue 38, finding 16). `full` reads
 * the whole list as the spec's plain `GET /api/jobs`; `paged` reads it in pages of
 * `?limit=100&after=ID`. Prints the answer's size and the peak before and after the churn.
 */
import { megabytes, startProbeService } from './probeService';

const JOBS = 1_500;
const WRITERS = 2;
const READERS = 4;
const READS_PER_READER = 12;
const PAGE = 100;

const padded = (prefix: string, length: number) => prefix + 'x'.repeat(length - prefix.length);

function maximalJob(i: number) {
  return {
    name: padded(`job-${i}-`, 200),
    schedule: '0 0 1 1 *',
    command: padded(`echo ${i} `, 65_536),
    description: padded(`job ${i} `, 4_000),
    tags: Array.from({ length: 50 }, (_, t) => padded(`t${t}-`, 100)),
    timeout: 86_400,
    retry: { maxAttempts: 10, baseDelay: 3_600 },
    timezone: 'America/Argentina/ComodRivadavia',
  };
}

async function send(url: string, method: string, body?: unknown): Promise<{ status: number; bytes: number }> {
  const response = await fetch(url, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const bytes = (await response.arrayBuffer()).byteLength;
  if (response.status >= 300) throw new Error(`${method} ${url}: ${response.status}`);
  return { status: response.status, bytes };
}

async function readWholeList(base: string, paged: boolean): Promise<number> {
  if (!paged) return (await send(`${base}/api/jobs`, 'GET')).bytes;
  let after = 0;
  let total = 0;
  for (;;) {
    const response = await fetch(`${base}/api/jobs?limit=${PAGE}&after=${after}`);
    if (response.status !== 200) throw new Error(`paged read: ${response.status}`);
    const page = (await response.json()) as { id: number }[];
    total += page.length;
    if (page.length < PAGE) return total;
    after = page[page.length - 1]!.id;
  }
}

async function main(): Promise<void> {
  const mode = process.argv[2] ?? 'full';
  if (mode !== 'full' && mode !== 'paged') throw new Error('mode: full or paged');
  const service = await startProbeService();
  try {
    const ids: number[] = [];
    for (let i = 0; i < JOBS; i += 10) {
      const batch = await Promise.all(
        Array.from({ length: 10 }, async (_, k) => {
          const response = await fetch(`${service.url}/api/jobs`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(maximalJob(i + k)),
          });
          if (response.status !== 201) throw new Error(`create: ${response.status} ${await response.text()}`);
          return ((await response.json()) as { id: number }).id;
        }),
      );
      ids.push(...batch);
    }
    const seeded = service.memory();
    process.stdout.write(
      `${JOBS} maximal jobs; after seeding: RSS ${megabytes(seeded.rss)}, peak ${megabytes(seeded.peakRss)}\n`,
    );
    if (mode === 'full') {
      // Paged, the service never reads the whole list: the readers below do not either.
      const size = (await send(`${service.url}/api/jobs`, 'GET')).bytes;
      const read = service.memory();
      process.stdout.write(
        `GET /api/jobs answers ${megabytes(size)}; after that read: RSS ${megabytes(read.rss)}, ` +
          `peak ${megabytes(read.peakRss)}\n`,
      );
    }
    let writing = true;
    let writes = 0;
    const writers = Array.from({ length: WRITERS }, async (_, w) => {
      for (let n = 0; writing; n++) {
        const id = ids[(n * WRITERS + w) % ids.length]!;
        const i = ids.indexOf(id);
        await send(`${service.url}/api/jobs/${id}`, 'PUT', {
          ...maximalJob(i),
          description: padded(`v${n} `, 4_000),
        });
        writes++;
      }
    });
    const started = performance.now();
    await Promise.all(
      Array.from({ length: READERS }, async () => {
        for (let n = 0; n < READS_PER_READER; n++) await readWholeList(service.url, mode === 'paged');
      }),
    );
    writing = false;
    await Promise.all(writers);
    const churned = service.memory();
    process.stdout.write(
      `churn (${mode}): ${READERS} readers × ${READS_PER_READER} whole-list reads, ${writes} writes, ` +
        `${((performance.now() - started) / 1000).toFixed(1)} s; RSS ${megabytes(churned.rss)}, ` +
        `peak ${megabytes(churned.peakRss)}\n`,
    );
  } finally {
    await service.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${String((error as Error)?.stack ?? error)}\n`);
  process.exit(1);
});
