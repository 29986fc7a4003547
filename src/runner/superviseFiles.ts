/**
 * The files through which `crondeck run --supervise` (the runner, a native sidecar) drives the job
 * container, which runs the user's image with the script of controller/desired/sidecarScript.ts.
 * Both share an emptyDir at SUPERVISE_DIR, the pod's process namespace and a UID. For attempt
 * n = 0, 1, ...:
 *
 *   ready          job container: written once at start (its shell's pid): the image runs
 *   <n>.command    runner: the command text (written to a temporary name, then renamed)
 *   <n>.start      runner: created after <n>.command is complete: run attempt n now
 *   <n>.pid        job container: pid of the attempt's shell. Where the image has `setsid` it
 *                  leads a process group of its own and the runner signals the group (-pid);
 *                  else the runner signals the pid and its descendants, which it finds in /proc
 *                  (the pod shares one process namespace). TERM on timeout, KILL after a grace
 *   <n>.stdout     job container: the attempt's standard output
 *   <n>.stderr     job container: the attempt's standard error
 *   <n>.exit       job container: the exit status (128 + signal when killed), written to
 *                  <n>.exit.tmp and renamed, so a reader never sees half of it
 *   done           runner: after the last attempt's report, holds the exit code the job container
 *                  exits with (0 when the run succeeded): the pod's phase follows it
 *
 * The files also make the runner restartable: a restarted sidecar finds which attempts ran and
 * carries on instead of running them again.
 */
export const SUPERVISE_DIR = '/crondeck';

export const SUPERVISE_FILES = {
  ready: 'ready',
  done: 'done',
  command: (attempt: number) => `${attempt}.command`,
  start: (attempt: number) => `${attempt}.start`,
  pid: (attempt: number) => `${attempt}.pid`,
  stdout: (attempt: number) => `${attempt}.stdout`,
  stderr: (attempt: number) => `${attempt}.stderr`,
  exit: (attempt: number) => `${attempt}.exit`,
} as const;
