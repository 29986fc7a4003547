import type { AccessAttributes } from '../kube/accessReviews';

/**
 * A 403's message, phrased as the API server phrases its own: `User "u" cannot create resource
 * "scheduledjobs/run" in API group "crondeck.dev" in the namespace "a"`, `... at the cluster
 * scope`, or `User "u" cannot post path "/crondeck/api/scheduler/pause"`: the path as it was checked,
 * the one a ClusterRole's `nonResourceURLs` must name.
 */
export function forbiddenMessage(username: string, attributes: AccessAttributes): string {
  if (attributes.kind === 'nonResource') {
    return `User "${username}" cannot ${attributes.verb} path "${attributes.path}"`;
  }
  const resource = attributes.subresource
    ? `${attributes.resource}/${attributes.subresource}`
    : attributes.resource;
  const scope = attributes.namespace ? `in the namespace "${attributes.namespace}"` : 'at the cluster scope';
  return `User "${username}" cannot ${attributes.verb} resource "${resource}" in API group "${attributes.group}" ${scope}`;
}

/**
 * The 403 of a request about a job or execution (by id) that the caller may not see: the same
 * whether it exists or not, and naming no namespace, so that ids do not tell what a caller cannot
 * list (as the API server answers 403, not 404, for what one may not get).
 */
export function unseenMessage(
  username: string,
  verb: string,
  resource: string,
  group: string,
  what: string,
): string {
  return (
    `User "${username}" cannot ${verb} resource "${resource}" in API group "${group}" for ${what}: ` +
    `it is in a namespace where they may not, or it does not exist`
  );
}
