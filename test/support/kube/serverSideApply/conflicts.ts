import { ApiError } from '../errors';
import { pathString } from './fieldSet';
import type { Conflict, ManagerEntry } from './updater';

/** How a conflict names its owner: `"helm"`, `"kubelet" with subresource "status"`, `"kubectl-client-side-apply" using apps/v1`. */
function printManager(e: ManagerEntry): string {
  let s = JSON.stringify(e.manager);
  if (e.subresource) s += ` with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === 'Update') s += ` using ${e.apiVersion}`;
  return s;
}

/** The 409 of a refused apply, with one FieldManagerConflict cause per field (04 #23). */
export function conflictError(conflicts: Conflict[]): ApiError {
  const sorted = [...conflicts].sort((a, b) => {
    const ma = printManager(a.owner);
    const mb = printManager(b.owner);
    return ma < mb ? -1 : ma > mb ? 1 : 0;
  });
  const causes = sorted.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${printManager(c.owner)}`,
    field: pathString(c.path),
  }));
  let message: string;
  if (sorted.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${printManager(sorted[0]!.owner)}: ${pathString(sorted[0]!.path)}`;
  } else {
    const lines: string[] = [];
    let last = '';
    for (const c of sorted) {
      const owner = printManager(c.owner);
      if (owner !== last) lines.push(`conflicts with ${owner}:`);
      last = owner;
      lines.push(`- ${pathString(c.path)}`);
    }
    message = `Apply failed with ${sorted.length} conflicts: ${lines.join('\n')}`;
  }
  return new ApiError(409, 'Conflict', message, { causes });
}
