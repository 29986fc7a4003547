/**
 * The person an API request acts for, as the cluster's API server authenticated them
 * (SERVICE_AUTH=kubernetes: a TokenReview of their bearer token). The service writes the cluster
 * for them with their own token, so that RBAC, admission and the audit log see them, not the
 * service; and records their username where a change or a run is theirs.
 */
export interface Caller {
  username: string;
  groups: string[];
  uid: string | null;
  extra: Record<string, string[]>;
  /** Their bearer token, as they sent it: the credential of the cluster writes made for them. */
  token: string;
}
