import { readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { readBootId, readProcessStat } from './processGroup';

/**
 * What tells a process apart from every other, now and later: a PID means something only within
 * one boot of one kernel and one PID namespace (two containers on one machine share the boot but
 * not the namespace), and a PID is reused, which its start time (clock ticks since boot) tells.
 * Fields are null where /proc cannot say (not Linux).
 */
export interface ProcessIdentity {
  host: string;
  bootId: string | null;
  pidNamespace: string | null;
  pid: number;
  startTicks: string | null;
}

export function thisProcessIdentity(): ProcessIdentity {
  return {
    host: hostname(),
    bootId: readBootId(),
    pidNamespace: readPidNamespace(),
    pid: process.pid,
    startTicks: readProcessStat(process.pid)?.startTicks ?? null,
  };
}

/** True when `other`'s PID can be looked up here: the same boot of the same kernel, the same namespace. */
export function seenFromHere(other: ProcessIdentity, me: ProcessIdentity): boolean {
  return (
    me.bootId !== null &&
    me.pidNamespace !== null &&
    other.bootId === me.bootId &&
    other.pidNamespace === me.pidNamespace
  );
}

/**
 * Whether a process seen from here still runs: its PID is there, started at the recorded tick,
 * and has not exited (a zombie has; only its parent has not collected it). A stopped process
 * (SIGSTOP, a debugger) is alive.
 */
export function isRunningHere(other: ProcessIdentity): boolean {
  const stat = readProcessStat(other.pid);
  if (!stat || stat.state === 'Z' || stat.state === 'X') return false;
  return other.startTicks === null || stat.startTicks === other.startTicks;
}

function readPidNamespace(): string | null {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return null;
  }
}
