/**
 * One copy of the parts that cached objects have in common. A watch hands every object over as
 * freshly parsed JSON, so 5,000 CronJobs hold 5,000 copies of the same environment variables
 * (`{name: POD_NAME, valueFrom: {fieldRef: ...}}`), security contexts, volume mounts and label
 * maps, and each string a copy of its own: at 5,000 ScheduledJobs about a third of the controller's
 * heap. The cache keeps the first copy it saw of each small part (frozen, so that no holder can
 * change it under the others) and every later object points to it.
 *
 * Only parts that are plain data are shared: plain objects and arrays (or client-node's model
 * objects, which keep their class) whose every value is a string, number, boolean, null or such a
 * part, and whose JSON stays short. What differs from object to object (uids, versions, job ids)
 * is kept too, until a generation of the pool is full and a new one starts (makeRoom): a bound on
 * the memory it holds, at the cost of a second copy of some parts.
 */

/** Longer parts are left as they are: the parts worth sharing are the small, repeated ones. */
const MAX_KEY_LENGTH = 256;
/** Parts and strings remembered in one generation of the pool (it keeps two, see makeRoom). */
const GENERATION_ENTRIES = 10_000;

interface Visited {
  value: unknown;
  /** The part's content as a key (its JSON, with class names), or null when it is not shared. */
  key: string | null;
}

interface Generation {
  parts: Map<string, object>;
  strings: Map<string, string>;
}

const emptyGeneration = (): Generation => ({ parts: new Map(), strings: new Map() });

export class SharedValues {
  private current = emptyGeneration();
  private previous = emptyGeneration();

  /**
   * Returns `value` with its small data parts and strings replaced by the copies already kept:
   * the same content, the same key order and classes. Containers that are not shared themselves
   * are changed in place (the caller owns the object); shared ones are frozen.
   */
  share<T>(value: T): T {
    return this.visit(value).value as T;
  }

  /** How many parts and strings are kept (for tests). */
  get size(): number {
    const entries = (generation: Generation) => generation.parts.size + generation.strings.size;
    return entries(this.current) + entries(this.previous);
  }

  private visit(value: unknown): Visited {
    switch (typeof value) {
      case 'string':
        return { value: this.string(value), key: JSON.stringify(value) };
      case 'number':
      case 'boolean':
        return { value, key: JSON.stringify(value) };
      case 'object':
        if (value === null) return { value, key: 'null' };
        if (Array.isArray(value)) return this.array(value);
        return this.record(value);
      default:
        // undefined, functions: JSON has no key for them, so nothing holding one is shared.
        return { value, key: null };
    }
  }

  private array(items: unknown[]): Visited {
    if (Object.isFrozen(items)) return { value: items, key: null };
    let key: string | null = '[';
    items.forEach((item, index) => {
      const visited = this.visit(item);
      // Always written back: a kept string is equal (===) to the one it replaces, yet another copy.
      items[index] = visited.value;
      key = key === null || visited.key === null ? null : `${key}${index > 0 ? ',' : ''}${visited.key}`;
      if (key !== null && key.length > MAX_KEY_LENGTH) key = null;
    });
    return key === null ? { value: items, key: null } : this.part(items, `${key}]`);
  }

  private record(object: object): Visited {
    if (Object.isFrozen(object)) return { value: object, key: null };
    const prototype = Object.getPrototypeOf(object) as { constructor?: { name?: string } } | null;
    // A Date, a Buffer or a Map carries what its own keys do not show: kept as it is.
    const className = prototype === Object.prototype ? '' : modelClassName(object, prototype);
    if (className === null) return { value: object, key: null };
    const fields = object as Record<string, unknown>;
    let key: string | null = `${className}{`;
    let first = true;
    for (const name of Object.keys(fields)) {
      const field = fields[name];
      const visited = this.visit(field);
      fields[name] = visited.value;
      key =
        key === null || visited.key === null
          ? null
          : `${key}${first ? '' : ','}${JSON.stringify(name)}:${visited.key}`;
      if (key !== null && key.length > MAX_KEY_LENGTH) key = null;
      first = false;
    }
    return key === null ? { value: object, key: null } : this.part(object, `${key}}`);
  }

  private part(value: object, key: string): Visited {
    const kept = this.current.parts.get(key) ?? this.previous.parts.get(key);
    const shared = kept ?? Object.freeze(value);
    if (!this.current.parts.has(key)) {
      this.makeRoom();
      this.current.parts.set(key, shared);
    }
    return { value: shared, key };
  }

  private string(value: string): string {
    if (value.length > MAX_KEY_LENGTH) return value;
    const kept = this.current.strings.get(value) ?? this.previous.strings.get(value);
    const shared = kept ?? value;
    if (!this.current.strings.has(value)) {
      this.makeRoom();
      this.current.strings.set(value, shared);
    }
    return shared;
  }

  /**
   * Starts a new generation once the current one is full, keeping the last one for look-ups: what
   * every object holds (env var names, images, label maps) is found there and carried into the new
   * generation, while what only one object held (uids, versions) is forgotten with the old one.
   * Starting over from nothing instead would give each value a new copy at every turn, and at
   * 5,000 CronJobs the values that differ fill a generation every few hundred objects.
   */
  private makeRoom(): void {
    if (this.current.parts.size + this.current.strings.size < GENERATION_ENTRIES) return;
    this.previous = this.current;
    this.current = emptyGeneration();
  }
}

/**
 * The class of one of client-node's model objects (V1EnvVar...: a class whose instances hold only
 * their fields), or null for any other object that is not plain.
 */
function modelClassName(
  object: object,
  prototype: { constructor?: { name?: string } } | null,
): string | null {
  const name = prototype?.constructor?.name;
  if (!name || Object.getPrototypeOf(prototype) !== Object.prototype) return null;
  const isModel =
    typeof (prototype.constructor as { getAttributeTypeMap?: unknown }).getAttributeTypeMap === 'function';
  return isModel && object instanceof (prototype.constructor as new () => object) ? name : null;
}
