import type { Attributes } from './auth';

/** Subresources of a Namespace itself, not resources inside it (requestinfo.go namespaceSubresources). */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

function splitPath(path: string): string[] {
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? [] : trimmed.split('/');
}

/** Go's URL.Path is the unescaped path; a malformed escape stays as sent. */
function unescapePath(pathname: string): string {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return pathname;
  }
}

/** apimachinery's path.IsValidPathSegmentName: no `.`/`..`, no `/` or `%`. */
function isValidPathSegmentName(name: string): boolean {
  return name !== '.' && name !== '..' && !name.includes('/') && !name.includes('%');
}

/**
 * The name a list or watch is narrowed to by `fieldSelector=metadata.name=X` (fields.Selector
 * RequiresExactMatch). A selector that does not parse names nothing (the resolver falls back).
 */
function nameFromFieldSelector(raw: string | null): string | undefined {
  if (!raw) return undefined;
  const terms: string[] = [];
  let current = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === '\\' && i + 1 < raw.length) {
      current += c + raw[++i]!;
    } else if (c === ',') {
      terms.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  terms.push(current);
  for (const term of terms) {
    const m = /^(.*?)(==|!=|=)(.*)$/s.exec(term);
    if (!m) return undefined;
    if (m[1] === 'metadata.name' && m[2] !== '!=') return m[3]!.replace(/\\(.)/g, '$1');
  }
  return undefined;
}

/**
 * What a request asks, in authorizer terms, as the API server's RequestInfo resolver
 * (apiserver endpoints/request/requestinfo.go) derives it before any routing: paths with fewer
 * than three segments, or outside /api and /apis, or /apis/{group}/{version} itself, are
 * non-resource requests whose verb is the lowercase method; GET without a name is list, or watch
 * when `watch` is anything but false/0; DELETE without a name is deletecollection;
 * `namespaces/{ns}` gives the namespace too (reading your own namespace needs only a RoleBinding
 * there); a list narrowed by `fieldSelector=metadata.name=` carries that name.
 */
export function requestAttributes(method: string, pathname: string, query: URLSearchParams): Attributes {
  const path = unescapePath(pathname);
  const nonResource: Attributes = { verb: method.toLowerCase(), path, group: '', resource: '' };
  let parts = splitPath(path);
  if (parts.length < 3 || (parts[0] !== 'api' && parts[0] !== 'apis')) return nonResource;
  const prefix = parts[0];
  parts = parts.slice(1);
  let group = '';
  if (prefix === 'apis') {
    if (parts.length < 3) return nonResource;
    group = parts[0]!;
    parts = parts.slice(1);
  }
  parts = parts.slice(1); // the version
  let verb: string;
  if ((parts[0] === 'proxy' || parts[0] === 'watch') && parts.length >= 2) {
    verb = parts[0];
    parts = parts.slice(1);
  } else {
    verb =
      { POST: 'create', GET: 'get', HEAD: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' }[method] ??
      '';
  }
  let namespace: string | undefined;
  if (parts[0] === 'namespaces' && parts.length > 1) {
    namespace = parts[1];
    if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2]!)) parts = parts.slice(2);
  }
  const resource = parts[0] ?? '';
  let name = parts[1];
  const subresource = verb !== 'proxy' ? parts[2] : undefined;
  if (name === undefined && verb === 'get') {
    const watch = query.getAll('watch');
    verb = watch.length > 0 && !['false', '0'].includes(watch[0]!.toLowerCase()) ? 'watch' : 'list';
    const selected = nameFromFieldSelector(query.get('fieldSelector'));
    if (selected !== undefined && isValidPathSegmentName(selected)) name = selected;
  }
  if (name === undefined && verb === 'delete') verb = 'deletecollection';
  const attributes: Attributes = { verb, group, resource };
  if (subresource) attributes.subresource = subresource;
  if (namespace) attributes.namespace = namespace;
  if (name) attributes.name = name;
  return attributes;
}
