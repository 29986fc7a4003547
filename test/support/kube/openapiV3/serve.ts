import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { customResourceDefinitions } from '../crd';
import { resourceKey, type Registry, type ResourceType } from '../resources';
import type { Store } from '../store';
import { builtinGroupVersionDocument } from './builtinDocument';
import { customGroupVersionDocument, servedCustomKinds, type ServedCustomKind } from './crdDocument';
import { recordedFileOf, recordedText } from './templates';

/**
 * GET /openapi/v3 and /openapi/v3/<group version> as kube-openapi's handler3 answers: the index
 * lists one document per served group version with the hash of its bytes, each document comes
 * as JSON. A group version's document is the recorded server's where there is one, the CRDs'
 * (built like the apiextensions server builds it) for custom resources, else built from the
 * kinds the emulator validates with. Only group versions the emulator serves are listed.
 */

function groupVersionPath(t: Pick<ResourceType, 'group' | 'version'>): string {
  return t.group ? `apis/${t.group}/${t.version}` : `api/${t.version}`;
}

/** Documents that do not change (recorded, built-in) by path; CRD ones by their CRDs' versions. */
const cache = new Map<string, { key: string; text: string; hash: string }>();

function cached(path: string, key: string, make: () => string): { text: string; hash: string } {
  const hit = cache.get(path);
  if (hit && hit.key === key) return hit;
  const text = make();
  // The etag kube-openapi puts in serverRelativeURL: SHA-512 of the bytes, upper-case hex.
  const entry = { key, text, hash: createHash('sha512').update(text).digest('hex').toUpperCase() };
  cache.set(path, entry);
  return entry;
}

function documents(registry: Registry, store: Store): Map<string, () => { text: string; hash: string }> {
  const byPath = new Map<string, ResourceType[]>();
  for (const t of registry.all()) {
    const p = groupVersionPath(t);
    byPath.set(p, [...(byPath.get(p) ?? []), t]);
  }
  const out = new Map<string, () => { text: string; hash: string }>();
  for (const [p, types] of byPath) {
    const { group, version } = types[0]!;
    if (types.some((t) => t.custom)) {
      out.set(p, () => {
        const crds = types
          .filter((t) => t.custom)
          .map((t) =>
            store.get(resourceKey(customResourceDefinitions), undefined, `${t.resource}.${t.group}`),
          )
          .filter((c) => c !== undefined);
        const key = crds.map((c) => `${c.metadata.name}@${c.metadata.resourceVersion}`).join(',');
        return cached(p, key, () => {
          const kinds = crds.map((c) => servedCustomKinds(c, version)).filter((k) => k !== undefined);
          return JSON.stringify(customGroupVersionDocument(kinds as ServedCustomKind[]));
        });
      });
      continue;
    }
    const recorded = recordedText(recordedFileOf(p));
    if (recorded !== null) {
      out.set(p, () => cached(p, 'recorded', () => recorded));
      continue;
    }
    const kinds = types.map((t) => ({
      group,
      version,
      kind: t.kind,
      plural: t.resource,
      namespaced: t.namespaced,
      status: t.subresources.includes('status'),
    }));
    const key = kinds.map((k) => k.kind).join(',');
    out.set(p, () =>
      cached(p, key, () => JSON.stringify(builtinGroupVersionDocument(group, version, kinds))),
    );
  }
  return out;
}

function acceptsJson(accept: string | undefined): boolean {
  if (!accept) return true;
  return accept.split(',').some((c) => /^\s*(application\/json|application\/\*|\*\/\*)\s*(;|$)/.test(c));
}

/** Answers a request under /openapi/v3; returns false for other /openapi paths. */
export function serveOpenApiV3(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  registry: Registry,
  store: Store,
): boolean {
  const match = /^\/openapi\/v3(?:\/(.*))?$/.exec(url.pathname);
  if (!match) return false;
  const docs = documents(registry, store);
  const gv = match[1];
  if (!gv) {
    const paths: Record<string, { serverRelativeURL: string }> = {};
    for (const p of [...docs.keys()].sort()) {
      paths[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${docs.get(p)!().hash}` };
    }
    // http.ServeContent sniffs the index's type (01 #11 shows text/plain).
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(JSON.stringify({ paths }));
    return true;
  }
  const doc = docs.get(gv);
  if (!doc) {
    res.writeHead(404);
    res.end();
    return true;
  }
  if (!acceptsJson(req.headers.accept)) {
    res.writeHead(406);
    res.end();
    return true;
  }
  const { text, hash } = doc();
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    etag: `"${hash}"`,
    vary: 'Accept',
  };
  if (url.searchParams.get('hash')) headers['cache-control'] = 'public, immutable';
  res.writeHead(200, headers);
  res.end(text);
  return true;
}
