import { setFlagsFromString } from 'node:v8';

/**
 * Keeps PGlite's WebAssembly on V8's baseline compiler (Liftoff). By default V8 recompiles the hot
 * functions of the 9 MB Postgres module with its optimising compiler in the background: some 75 MB
 * of code and compiler memory that stays with the process, and on a 2-core machine compile threads
 * that compete with the requests. Measured (bench/scenarios/memory.ts): the embedded service idles
 * some 140 MB smaller after the bench's load, and serves its lists faster, not slower.
 *
 * A V8 flag, read when a module is compiled: set before PGlite compiles its module. It applies to
 * every WebAssembly module of the process; the service has no other.
 */
export function keepWebAssemblyOnBaselineCompiler(): void {
  setFlagsFromString('--liftoff-only');
}
