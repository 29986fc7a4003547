/**
 * The instruction protocol between the runner (`crondeck run --supervise`, a native sidecar) and
 * the job container (the user's image, running `sidecarScript()` with /bin/sh). Both share an
 * emptyDir at SUPERVISE_DIR, the process namespace and a UID. Files, for attempt n = 0, 1, ...:
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
 * Sequence: job container writes `ready`; for each attempt the runner writes <n>.command and
 * <n>.start, waits for <n>.exit (signalling <n>.pid on timeout), reads the output files and
 * reports; then it writes <n+1>.* or `done`. The job container polls once a second, so the
 * script needs nothing but a POSIX shell with `sleep`, `cat` and `mv`.
 */

export const SUPERVISE_DIR = '/crondeck';

export const SIDECAR_FILES = {
  ready: 'ready',
  done: 'done',
  command: (attempt: number) => `${attempt}.command`,
  start: (attempt: number) => `${attempt}.start`,
  pid: (attempt: number) => `${attempt}.pid`,
  stdout: (attempt: number) => `${attempt}.stdout`,
  stderr: (attempt: number) => `${attempt}.stderr`,
  exit: (attempt: number) => `${attempt}.exit`,
} as const;

/** Single-quotes a string for sh. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The job container's script (for `/bin/sh -c`), waiting in `dir` for the runner's instructions. */
export function sidecarScript(dir: string = SUPERVISE_DIR, pollSeconds = 1): string {
  if (!Number.isInteger(pollSeconds) || pollSeconds < 1)
    throw new Error('pollSeconds must be a whole number ≥ 1');
  return `d=${shellQuote(dir)}
# Each attempt in a session of its own where setsid exists, so the runner can signal it whole.
# (set -m needs a terminal in dash, so it cannot do this.)
run=sh
if command -v setsid > /dev/null 2>&1; then run="setsid sh"; fi
pid=
trap 'if [ -n "$pid" ]; then kill -TERM "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null; fi; exit 143' TERM INT
echo "$$" > "$d/ready"
n=0
while :; do
  if [ -e "$d/$n.start" ]; then
    $run -c "$(cat "$d/$n.command")" < /dev/null > "$d/$n.stdout" 2> "$d/$n.stderr" &
    pid=$!
    echo "$pid" > "$d/$n.pid"
    wait "$pid"
    code=$?
    pid=
    echo "$code" > "$d/$n.exit.tmp"
    mv "$d/$n.exit.tmp" "$d/$n.exit"
    n=$((n + 1))
  elif [ -e "$d/done" ]; then
    code=$(cat "$d/done")
    case "$code" in ''|*[!0-9]*) code=1 ;; esac
    exit "$code"
  else
    sleep ${pollSeconds}
  fi
done
`;
}
