/**
 * Comparison per the README's "must match exactly" list. managedFields and JSON key order are
 * informative, so they are dropped / ignored (managedFields are kept where a plan compares them);
 * "unordered" exchanges compare causes as sets.
 */
export function stripInformative(v: unknown, keepManagedFields = false): unknown {
  if (Array.isArray(v)) return v.map((x) => stripInformative(x, keepManagedFields));
  if (!v || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (k === 'managedFields' && !keepManagedFields) continue;
    out[k] = stripInformative(x, keepManagedFields);
  }
  return out;
}

/** Sorts details.causes and rebuilds the `[a, b]` part of the message from them. */
export function unorderStatus(v: unknown): unknown {
  const s = v as { message?: string; details?: { causes?: { field?: string; message: string }[] } };
  if (!s || typeof s !== 'object' || !s.details?.causes) return v;
  const causes = [...s.details.causes].sort((a, b) =>
    `${a.field}${a.message}`.localeCompare(`${b.field}${b.message}`),
  );
  const head = (s.message ?? '').replace(/ is invalid: .*$/s, ' is invalid: ');
  const parts = causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message));
  return { ...s, message: `${head}[${parts.join(', ')}]`, details: { ...s.details, causes } };
}

/** Canonical JSON (sorted keys) for equality and readable diffs. */
export function canonical(v: unknown): string {
  return JSON.stringify(sortKeys(v), null, 1);
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (!v || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.keys(v as object)
      .sort()
      .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
  );
}

/** The ConfigMap source the recorded (OpenShift-built) server adds to `kube-api-access-*` volumes. */
const OPENSHIFT_SERVICE_CA = 'openshift-service-ca.crt';

/**
 * The recorded pods' projected token volume has a fourth source that is an OpenShift carry, not
 * Kubernetes (kube-api README "The server"): it is dropped from recorded bodies before comparing.
 */
export function withoutOpenShiftCarry(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutOpenShiftCarry);
  if (!v || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    out[k] =
      k === 'sources' && Array.isArray(x)
        ? x
            .filter((s) => (s as { configMap?: { name?: string } }).configMap?.name !== OPENSHIFT_SERVICE_CA)
            .map(withoutOpenShiftCarry)
        : withoutOpenShiftCarry(x);
  }
  return out;
}
