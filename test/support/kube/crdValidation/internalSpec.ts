/**
 * The server validates a CRD in its internal form, which error paths reveal: a schema, subresources
 * or printer columns that every version shares move to the top level (`spec.validation…`,
 * `spec.subresources…`, `spec.additionalPrinterColumns[0]…`, 17 #17, #117, #123); `spec.version`
 * repeats the first version's name (17 #147); the conversion webhook's fields sit directly under
 * `spec.conversion` (17 #158).
 */
import { clone, deepEqual, type Obj } from '../types';

export interface InternalVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: Obj;
  subresources?: Obj;
  additionalPrinterColumns?: Obj[];
  selectableFields?: Obj[];
}

export interface InternalConversion {
  strategy?: string;
  webhookClientConfig?: Obj;
  conversionReviewVersions?: string[];
}

export interface InternalSpec {
  group: string;
  names: Obj;
  scope: string;
  /** versions[0].name (the v1beta1 field the internal type keeps). */
  version?: string;
  versions: InternalVersion[];
  /** The schema all versions share (`spec.validation`), or none. */
  validation?: Obj;
  subresources?: Obj;
  additionalPrinterColumns?: Obj[];
  conversion?: InternalConversion;
  preserveUnknownFields?: boolean;
}

function allEqual(versions: Obj[], key: string): boolean {
  return versions.every((v) => deepEqual(v[key], versions[0]![key]));
}

export function toInternalSpec(spec: Obj): InternalSpec {
  const versions: InternalVersion[] = clone((spec.versions ?? []) as InternalVersion[]);
  const out: InternalSpec = {
    group: spec.group ?? '',
    names: spec.names ?? {},
    scope: spec.scope ?? '',
    versions,
    preserveUnknownFields: spec.preserveUnknownFields,
  };
  if (spec.conversion) {
    const { webhook, ...rest } = spec.conversion as Obj;
    out.conversion = { ...rest };
    if (webhook) {
      out.conversion.conversionReviewVersions = webhook.conversionReviewVersions;
      if (webhook.clientConfig) out.conversion.webhookClientConfig = webhook.clientConfig;
    }
  }
  if (versions.length === 0) return out;
  out.version = versions[0]!.name;
  const hoist = (key: 'schema' | 'subresources' | 'additionalPrinterColumns') => {
    if (!allEqual(versions as Obj[], key)) return undefined;
    const shared = versions[0]![key];
    for (const v of versions) delete v[key];
    return shared;
  };
  out.subresources = hoist('subresources');
  out.validation = hoist('schema');
  out.additionalPrinterColumns = hoist('additionalPrinterColumns') as Obj[] | undefined;
  return out;
}

/** The subresources that apply to a version: its own, or the shared ones. */
export function subresourcesOf(spec: InternalSpec, version: InternalVersion): Obj | undefined {
  return spec.versions.some((v) => v.subresources) ? version.subresources : spec.subresources;
}
