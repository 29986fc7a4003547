import { notEmulated } from './errors';
import type { Obj } from './types';

/**
 * Request bodies in Kubernetes' protobuf encoding (application/vnd.kubernetes.protobuf), which
 * client-go's typed clientsets send for built-in kinds: helm keeps its releases in Secrets through
 * one. A body is the magic `k8s\0` and a runtime.Unknown {typeMeta, raw}; `raw` is the object in
 * the generated.proto messages of k8s.io/api. Only the messages below are decoded (to the JSON the
 * client would have sent); any other kind, or a field number they do not list, is refused as not
 * emulated rather than guessed.
 */

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

type Field =
  | { kind: 'string' | 'bytes' | 'int' | 'bool'; name: string; repeated?: boolean }
  | { kind: 'message'; name: string; message: string; repeated?: boolean }
  | { kind: 'map'; name: string; values: 'string' | 'bytes' };

const MESSAGES: Record<string, Record<number, Field>> = {
  Unknown: {
    1: { kind: 'message', name: 'typeMeta', message: 'TypeMeta' },
    2: { kind: 'bytes', name: 'raw' },
    3: { kind: 'string', name: 'contentEncoding' },
    4: { kind: 'string', name: 'contentType' },
  },
  TypeMeta: { 1: { kind: 'string', name: 'apiVersion' }, 2: { kind: 'string', name: 'kind' } },
  Secret: {
    1: { kind: 'message', name: 'metadata', message: 'ObjectMeta' },
    2: { kind: 'map', name: 'data', values: 'bytes' },
    3: { kind: 'string', name: 'type' },
    4: { kind: 'map', name: 'stringData', values: 'string' },
    5: { kind: 'bool', name: 'immutable' },
  },
  ObjectMeta: {
    1: { kind: 'string', name: 'name' },
    2: { kind: 'string', name: 'generateName' },
    3: { kind: 'string', name: 'namespace' },
    4: { kind: 'string', name: 'selfLink' },
    5: { kind: 'string', name: 'uid' },
    6: { kind: 'string', name: 'resourceVersion' },
    7: { kind: 'int', name: 'generation' },
    8: { kind: 'message', name: 'creationTimestamp', message: 'Time' },
    9: { kind: 'message', name: 'deletionTimestamp', message: 'Time' },
    10: { kind: 'int', name: 'deletionGracePeriodSeconds' },
    11: { kind: 'map', name: 'labels', values: 'string' },
    12: { kind: 'map', name: 'annotations', values: 'string' },
    13: { kind: 'message', name: 'ownerReferences', message: 'OwnerReference', repeated: true },
    14: { kind: 'string', name: 'finalizers', repeated: true },
  },
  OwnerReference: {
    1: { kind: 'string', name: 'kind' },
    3: { kind: 'string', name: 'name' },
    4: { kind: 'string', name: 'uid' },
    5: { kind: 'string', name: 'apiVersion' },
    6: { kind: 'bool', name: 'controller' },
    7: { kind: 'bool', name: 'blockOwnerDeletion' },
  },
  Time: { 1: { kind: 'int', name: 'seconds' }, 2: { kind: 'int', name: 'nanos' } },
  DeleteOptions: {
    1: { kind: 'int', name: 'gracePeriodSeconds' },
    2: { kind: 'message', name: 'preconditions', message: 'Preconditions' },
    3: { kind: 'bool', name: 'orphanDependents' },
    4: { kind: 'string', name: 'propagationPolicy' },
    5: { kind: 'string', name: 'dryRun', repeated: true },
  },
  Preconditions: { 1: { kind: 'string', name: 'uid' }, 2: { kind: 'string', name: 'resourceVersion' } },
};

/** The kinds whose bodies are decoded, by apiVersion/kind. */
const TOP_LEVEL: Record<string, string> = {
  'v1/Secret': 'Secret',
  'meta.k8s.io/v1/DeleteOptions': 'DeleteOptions',
  'v1/DeleteOptions': 'DeleteOptions',
};

class Reader {
  private pos = 0;
  constructor(private readonly buf: Buffer) {}
  done(): boolean {
    return this.pos >= this.buf.length;
  }
  varint(): bigint {
    let result = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const b = this.buf[this.pos++];
      if (b === undefined) throw notEmulated('a truncated protobuf body');
      result |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return result;
    }
  }
  bytes(): Buffer {
    const len = Number(this.varint());
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }
}

function decodeMessage(buf: Buffer, message: string): Obj {
  const fields = MESSAGES[message]!;
  const out: Obj = {};
  const r = new Reader(buf);
  while (!r.done()) {
    const key = Number(r.varint());
    const number = key >> 3;
    const wire = key & 7;
    const field = fields[number];
    if (!field || (wire !== 0 && wire !== 2)) {
      throw notEmulated(`protobuf field ${number} of ${message}`);
    }
    const value = wire === 0 ? r.varint() : r.bytes();
    const decoded = decodeField(field, value);
    if (field.kind === 'map') {
      const [k, v] = decoded as [string, unknown];
      out[field.name] = { ...(out[field.name] as Obj | undefined), [k]: v };
    } else if ('repeated' in field && field.repeated) {
      out[field.name] = [...((out[field.name] as unknown[] | undefined) ?? []), decoded];
    } else {
      out[field.name] = decoded;
    }
  }
  return out;
}

function decodeField(field: Field, value: bigint | Buffer): unknown {
  if (typeof value === 'bigint') {
    if (field.kind === 'bool') return value !== 0n;
    // int64 in two's complement (negative grace periods are refused later by validation).
    return Number(BigInt.asIntN(64, value));
  }
  switch (field.kind) {
    case 'string':
      return value.toString('utf8');
    case 'bytes':
      return value;
    case 'message':
      return decodeMessage(value, field.message);
    case 'map': {
      const entry = decodeMessage(value, field.values === 'bytes' ? 'BytesEntry' : 'StringEntry');
      return [
        entry.key ?? '',
        field.values === 'bytes'
          ? ((entry.value as Buffer | undefined) ?? Buffer.alloc(0)).toString('base64')
          : (entry.value ?? ''),
      ];
    }
    default:
      throw notEmulated(`protobuf wire type of ${field.name}`);
  }
}

MESSAGES.StringEntry = { 1: { kind: 'string', name: 'key' }, 2: { kind: 'string', name: 'value' } };
MESSAGES.BytesEntry = { 1: { kind: 'string', name: 'key' }, 2: { kind: 'bytes', name: 'value' } };

/** Go's zero time (year 1), which a non-pointer metav1.Time encodes when unset: JSON's null. */
const ZERO_TIME_SECONDS = -62135596800;

function rfc3339(t: Obj): string | null {
  if (Number(t.seconds ?? 0) === ZERO_TIME_SECONDS) return null;
  return new Date(Number(t.seconds ?? 0) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export const PROTOBUF_TYPE = 'application/vnd.kubernetes.protobuf';

/** A protobuf request body as the JSON object it encodes. */
export function decodeProtobufBody(body: Buffer): Obj {
  if (!body.subarray(0, 4).equals(MAGIC)) throw notEmulated('a protobuf body without the k8s envelope');
  const unknown = decodeMessage(body.subarray(4), 'Unknown');
  const typeMeta = (unknown.typeMeta ?? {}) as Obj;
  const message = TOP_LEVEL[`${typeMeta.apiVersion}/${typeMeta.kind}`];
  if (!message) throw notEmulated(`protobuf bodies of ${typeMeta.apiVersion} ${typeMeta.kind}`);
  const obj = decodeMessage((unknown.raw as Buffer | undefined) ?? Buffer.alloc(0), message);
  const meta = obj.metadata as Obj | undefined;
  for (const k of ['creationTimestamp', 'deletionTimestamp'])
    if (meta?.[k]) meta[k] = rfc3339(meta[k] as Obj);
  return { apiVersion: typeMeta.apiVersion, kind: typeMeta.kind, ...obj };
}
