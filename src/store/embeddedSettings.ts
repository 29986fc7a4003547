import { PGlite } from '@electric-sql/pglite';

/**
 * PostgreSQL settings of the embedded database, chosen for memory. PGlite runs Postgres inside one
 * WebAssembly.Memory, which grows to the high-water mark of everything Postgres ever allocated and
 * never gives a byte back; its defaults are a server's (128 MB of shared buffers alone).
 *
 * - shared_buffers: the page cache, resident once its pages are read. A server's 128 MB would hold
 *   a service's working set many times over; 8 MB hold the jobs and the pages the lists read (the
 *   executions' indexes), and the kernel's file cache keeps the rest of the data a read away. With
 *   16 MB the service idled 8 MB larger after the bench's load (all of it resident WebAssembly
 *   memory), and its reads were as fast within the noise of a run.
 * - maintenance_work_mem: what one VACUUM or CREATE INDEX (migrations) may take: 64 MB by default,
 *   and what it once took stays with the process.
 * - temp_buffers: the service uses no temporary tables.
 *
 * wal_buffers follows shared_buffers (1/32 of it); work_mem stays PostgreSQL's 4 MB, one sort's.
 */
export const EMBEDDED_POSTGRES_SETTINGS: Readonly<Record<string, string>> = {
  shared_buffers: '8MB',
  maintenance_work_mem: '16MB',
  temp_buffers: '1MB',
};

/** PGlite's own start parameters (single-user mode and friends), then our settings as `-c`. */
export function embeddedStartParams(): string[] {
  return [
    ...PGlite.defaultStartParams,
    ...Object.entries(EMBEDDED_POSTGRES_SETTINGS).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
  ];
}
