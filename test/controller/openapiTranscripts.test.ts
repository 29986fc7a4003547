import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { KUBE_API_TRANSCRIPTS_DIR } from '../support/kubeApiFixtures';
import { documentFileFor, OPENAPI_DIR, validateKubernetesObject } from '../support/openapi/kubernetesSchemas';
import type { Loose } from '../support/openapi/loose';

/** Undoes the transcripts' normalization of times (see kube-api/README.md) with valid values. */
function withRealTimes(text: string): string {
  return text
    .replace(/"<microtime>"/g, '"2026-11-23T01:02:03.123456Z"')
    .replace(/"<time[^"]*>"/g, '"2026-11-23T01:02:03Z"');
}

/** Every built-in object the real server answered with, in responses and watch events. */
function answeredObjects(): { where: string; object: Loose }[] {
  const dir = KUBE_API_TRANSCRIPTS_DIR;
  const found: { where: string; object: Loose }[] = [];
  for (const file of readdirSync(dir).sort()) {
    const transcript = JSON.parse(withRealTimes(readFileSync(resolve(dir, file), 'utf8')));
    for (const exchange of transcript.exchanges) {
      const body = exchange.response.body;
      const objects: Loose[] = [];
      if (body && typeof body === 'object') {
        if (Array.isArray(body.items) && typeof body.kind === 'string' && body.kind.endsWith('List')) {
          const kind = body.kind.slice(0, -'List'.length);
          objects.push(...body.items.map((item: Loose) => ({ apiVersion: body.apiVersion, kind, ...item })));
        } else objects.push(body);
      }
      for (const event of exchange.response.events ?? []) {
        // A BOOKMARK carries only metadata.resourceVersion: not an object to validate.
        if (event.object && event.type !== 'BOOKMARK') objects.push(event.object);
      }
      for (const object of objects) {
        const { apiVersion, kind } = object;
        if (typeof apiVersion !== 'string' || typeof kind !== 'string') continue;
        if (!existsSync(resolve(OPENAPI_DIR, documentFileFor(apiVersion)))) continue;
        // Discovery documents and Status bodies are not resources of these documents.
        // TokenRequest is a subresource's kind, without a group-version-kind in the documents.
        if (
          ['Status', 'APIGroup', 'APIGroupList', 'APIResourceList', 'APIVersions', 'TokenRequest'].includes(
            kind,
          )
        ) {
          continue;
        }
        found.push({ where: `${file} #${exchange.i} ${kind}`, object });
      }
    }
  }
  return found;
}

describe('the validator on what the real server answered', () => {
  it('accepts every built-in object of the transcripts (no false alarms)', () => {
    const objects = answeredObjects();
    expect(objects.length).toBeGreaterThan(100);
    const refused = objects
      .map(({ where, object }) => ({ where, errors: validateKubernetesObject(object).errors }))
      .filter(({ errors }) => errors.length > 0);
    // An Event created through core/v1 reads back through events.k8s.io/v1 with `eventTime: null`
    // although the schema requires it: the server's own quirk, and the only refusal expected.
    expect(refused.filter(({ where }) => !where.startsWith('11-events.json'))).toEqual([]);
    for (const { errors } of refused)
      expect(errors).toEqual(["(root): must have required property 'eventTime'"]);
  });
});
