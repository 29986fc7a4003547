/**
 * apimachinery's CompareKubeAwareVersionStrings: v1 > v1beta2 > v1beta1 > v1alpha1, and those
 * above any other name, which sort alphabetically (`stable` after `v1`). Discovery lists versions
 * in this order, the first being preferred (17 #168).
 */
function parse(v: string): { major: number; type: number; minor: number } | undefined {
  const m = /^v([1-9]\d*)(?:(alpha|beta)([1-9]\d*))?$/.exec(v);
  if (!m) return undefined;
  return {
    major: Number(m[1]),
    type: m[2] === 'alpha' ? 0 : m[2] === 'beta' ? 1 : 2,
    minor: Number(m[3] ?? 0),
  };
}

/** Positive when `a` has the higher priority. */
export function compareKubeVersions(a: string, b: string): number {
  if (a === b) return 0;
  const pa = parse(a);
  const pb = parse(b);
  if (!pa && !pb) return a < b ? 1 : -1;
  if (!pa) return -1;
  if (!pb) return 1;
  return pa.type - pb.type || pa.major - pb.major || pa.minor - pb.minor;
}
