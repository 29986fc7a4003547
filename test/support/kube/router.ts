/** A request path split the way kube-apiserver's RequestInfo resolver splits it. */
export interface RouteInfo {
  kind: 'resource' | 'discovery' | 'version' | 'openapi' | 'unknown';
  /** For discovery: '/api', '/apis', '/api/v1', '/apis/g', '/apis/g/v'. */
  path: string;
  group: string;
  version: string;
  namespace?: string;
  resource: string;
  name?: string;
  subresource?: string;
}

export function route(pathname: string): RouteInfo {
  const parts = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  const base: RouteInfo = { kind: 'unknown', path: pathname, group: '', version: '', resource: '' };
  if (parts[0] === 'version' && parts.length === 1) return { ...base, kind: 'version' };
  if (parts[0] === 'openapi') return { ...base, kind: 'openapi' };
  let rest: string[];
  if (parts[0] === 'api') {
    if (parts.length <= 2) return { ...base, kind: 'discovery', version: parts[1] ?? '' };
    base.version = parts[1]!;
    rest = parts.slice(2);
  } else if (parts[0] === 'apis') {
    if (parts.length <= 3)
      return { ...base, kind: 'discovery', group: parts[1] ?? '', version: parts[2] ?? '' };
    base.group = parts[1]!;
    base.version = parts[2]!;
    rest = parts.slice(3);
  } else {
    return base;
  }
  // namespaces/NS/RESOURCE/... is namespaced; namespaces/NS[/status|finalize] is the Namespace itself.
  if (rest[0] === 'namespaces' && rest.length >= 3 && !['status', 'finalize'].includes(rest[2]!)) {
    return {
      ...base,
      kind: 'resource',
      namespace: rest[1],
      resource: rest[2]!,
      name: rest[3],
      subresource: rest.slice(4).join('/') || undefined,
    };
  }
  return {
    ...base,
    kind: 'resource',
    resource: rest[0]!,
    name: rest[1],
    subresource: rest.slice(2).join('/') || undefined,
  };
}
