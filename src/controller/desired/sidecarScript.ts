import { shellQuote } from '../../runner/shellQuote';
import { SUPERVISE_DIR } from '../../runner/superviseFiles';

/**
 * The job container's side of the instruction protocol with the runner (`crondeck run
 * --supervise`, a native sidecar): the files and their order are described in
 * runner/superviseFiles.ts. For each attempt the runner writes <n>.command and <n>.start; this
 * script runs it, writing <n>.pid, <n>.stdout, <n>.stderr and <n>.exit; on `done` it exits with the
 * code in it. It polls once a second, so it needs nothing but a POSIX shell with `sleep`, `cat` and
 * `mv` (`setsid`, where the image has it, gives each attempt a process group of its own).
 */

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
