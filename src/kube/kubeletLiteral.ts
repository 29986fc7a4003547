/**
 * How a pod's env value, `command` or `args` must spell a string for the container to get exactly
 * that string. The kubelet expands `$(VAR)` there with the container's variables and reduces `$$`
 * to `$` (EnvVar.value and Container.command in the Kubernetes API), so `echo $$` would reach the
 * shell as `echo $` and `$(HOME)` as the container's HOME. Doubling every `$` undoes both: each
 * `$$` becomes one `$`, and no `$(` is left to expand.
 */
export function kubeletLiteral(text: string): string {
  return text.split('$').join('$$');
}
