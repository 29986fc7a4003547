/**
 * spec.conversion: strategy None or Webhook; a webhook needs a client config (an https URL or a
 * service) and conversionReviewVersions; None may not carry either (17 #157–#162).
 */
import { fieldErr, type FieldError } from '../errors';
import type { Obj } from '../types';
import { goStringSlice } from './goSyntax';
import { dns1035Errors, subdomainErrors } from './dnsNames';
import type { InternalConversion } from './internalSpec';

const ACCEPTED_REVIEW_VERSIONS = ['v1', 'v1beta1'];
const FORM = '; desired format: https://host[/path]';

function urlErrors(raw: string, field: string): FieldError[] {
  let u: URL;
  try {
    u = new URL(raw);
  } catch (e) {
    return [fieldErr.required(field, `url must be a valid URL: ${(e as Error).message}${FORM}`)];
  }
  const errs: FieldError[] = [];
  const scheme = u.protocol.replace(/:$/, '');
  if (scheme !== 'https')
    errs.push(fieldErr.invalid(field, scheme, `'https' is the only allowed URL scheme${FORM}`));
  if (!u.host) errs.push(fieldErr.invalid(field, u.host, `host must be specified${FORM}`));
  if (u.username || u.password) {
    errs.push(
      fieldErr.invalid(
        field,
        u.password ? `${u.username}:${u.password}` : u.username,
        'user information is not permitted in the URL',
      ),
    );
  }
  if (u.hash) errs.push(fieldErr.invalid(field, u.hash.slice(1), 'fragments are not permitted in the URL'));
  if (u.search)
    errs.push(fieldErr.invalid(field, u.search.slice(1), 'query parameters are not permitted in the URL'));
  return errs;
}

function serviceErrors(svc: Obj, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!svc.name) errs.push(fieldErr.required(`${field}.name`, 'service name is required'));
  if (!svc.namespace) errs.push(fieldErr.required(`${field}.namespace`, 'service namespace is required'));
  const port = (svc.port ?? 443) as number;
  if (port < 1 || port > 65535) {
    errs.push(
      fieldErr.invalid(`${field}.port`, port, 'port is not valid: must be between 1 and 65535, inclusive'),
    );
  }
  const path = svc.path as string | undefined;
  if (path === undefined || path === '/' || path === '') return errs;
  if (path === '//') return [...errs, fieldErr.invalid(`${field}.path`, path, 'segment[0] may not be empty')];
  if (!path.startsWith('/')) errs.push(fieldErr.invalid(`${field}.path`, path, "must start with a '/'"));
  let rest = path.slice(1);
  if (rest.endsWith('/')) rest = rest.slice(0, -1);
  rest.split('/').forEach((step, i) => {
    if (!step) errs.push(fieldErr.invalid(`${field}.path`, path, `segment[${i}] may not be empty`));
    else
      for (const f of subdomainErrors(step))
        errs.push(fieldErr.invalid(`${field}.path`, path, `segment[${i}]: ${f}`));
  });
  return errs;
}

function reviewVersionErrors(versions: string[] | undefined, field: string): FieldError[] {
  if (!versions || versions.length === 0) return [fieldErr.required(field)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(fieldErr.invalid(`${field}[${i}]`, v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const e of dns1035Errors(v)) errs.push(fieldErr.invalid(`${field}[${i}]`, v, e));
  });
  if (!versions.some((v) => ACCEPTED_REVIEW_VERSIONS.includes(v))) {
    errs.push(
      fieldErr.invalidRaw(
        field,
        goStringSlice(versions),
        `must include at least one of ${ACCEPTED_REVIEW_VERSIONS.join(', ')}`,
      ),
    );
  }
  return errs;
}

export function validateConversion(conversion: InternalConversion | undefined, path: string): FieldError[] {
  if (!conversion) return [];
  const errs: FieldError[] = [];
  if (!conversion.strategy) errs.push(fieldErr.required(`${path}.strategy`));
  else if (!['None', 'Webhook'].includes(conversion.strategy)) {
    errs.push(fieldErr.notSupported(`${path}.strategy`, conversion.strategy, ['None', 'Webhook']));
  }
  const cc = conversion.webhookClientConfig;
  if (conversion.strategy === 'Webhook') {
    if (!cc) {
      errs.push(fieldErr.required(`${path}.webhookClientConfig`, 'required when strategy is set to Webhook'));
    } else if ((cc.url === undefined) === (cc.service === undefined)) {
      errs.push(
        fieldErr.required(`${path}.webhookClientConfig`, 'exactly one of url or service is required'),
      );
    } else if (cc.url !== undefined) {
      errs.push(...urlErrors(cc.url, `${path}.webhookClientConfig.url`));
    } else {
      errs.push(...serviceErrors(cc.service, `${path}.webhookClientConfig.service`));
    }
    errs.push(
      ...reviewVersionErrors(conversion.conversionReviewVersions, `${path}.conversionReviewVersions`),
    );
  } else {
    if (cc)
      errs.push(
        fieldErr.forbidden(
          `${path}.webhookClientConfig`,
          'should not be set when strategy is not set to Webhook',
        ),
      );
    if (conversion.conversionReviewVersions?.length) {
      errs.push(
        fieldErr.forbidden(
          `${path}.conversionReviewVersions`,
          'should not be set when strategy is not set to Webhook',
        ),
      );
    }
  }
  return errs;
}
