/**
 * The README's normalization, applied to the emulator's answers in file order so that they can be
 * compared with the recorded (already normalized) ones.
 */
type Cat = 'uid' | 'rv' | 'continue' | 'sfx' | 'sched';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})/g;

export class Normalizer {
  private readonly maps: Record<Cat, Map<string, string>> = {
    uid: new Map(),
    rv: new Map(),
    continue: new Map(),
    sfx: new Map(),
    sched: new Map(),
  };
  private listRv = 0;
  private bookmarkRv = 0;
  /** Generated names seen so far: full name → normalized name. */
  private readonly generated = new Map<string, string>();

  placeholder(cat: Cat, raw: string): string {
    const m = this.maps[cat];
    let p = m.get(raw);
    if (!p) {
      p = `<${cat}:${m.size + 1}>`;
      m.set(raw, p);
    }
    return p;
  }

  /** Registers a raw value the replay put into a request for a placeholder it had not seen. */
  observe(cat: Cat, raw: string): void {
    this.placeholder(cat, raw);
  }

  /**
   * An exchange the emulator refused or the replay skipped still numbered its placeholders in the
   * recording; reserve the same numbers so later exchanges keep theirs.
   */
  reserve(recorded: unknown): void {
    const text = JSON.stringify(recorded ?? null);
    for (const m of text.matchAll(/<(uid|rv|list-rv|bookmark-rv|continue|sfx|sched):(\d+)>/g)) {
      const n = Number(m[2]);
      if (m[1] === 'list-rv') this.listRv = Math.max(this.listRv, n);
      else if (m[1] === 'bookmark-rv') this.bookmarkRv = Math.max(this.bookmarkRv, n);
      else {
        const map = this.maps[m[1] as Cat];
        while (map.size < n) map.set(`__reserved:${m[1]}:${map.size + 1}`, `<${m[1]}:${map.size + 1}>`);
      }
    }
  }

  private rv(raw: unknown): unknown {
    return typeof raw === 'string' && raw !== '' ? this.placeholder('rv', raw) : raw;
  }

  private string(s: string): string {
    if (/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/.test(s)) return '<secret>';
    let out = s.replace(/^127\.0\.0\.1:\d+$/, '<apiserver>').replace(UUID, (u) => this.placeholder('uid', u));
    out = out.replace(TIME, (t, frac: string | undefined, zone: string) => {
      // Go's reference layout in parse errors stays as is (README).
      if (t.startsWith('2006-01-02T15:04:05')) return t;
      if (!frac) return zone === 'Z' ? '<time>' : '<time+offset>';
      if (frac.length === 7 && zone === 'Z') return '<microtime>';
      return zone === 'Z' ? '<time.fraction>' : '<time.fraction+offset>';
    });
    for (const [raw, norm] of this.generated) if (out.includes(raw)) out = out.split(raw).join(norm);
    out = out.replace(/-(2\d{7})\b/g, (_m, minutes: string) => `-${this.placeholder('sched', minutes)}`);
    out = out.replace(
      /\b(kube-api-access-)([a-z0-9]{5})\b/g,
      (_m, p: string, sfx: string) => `${p}${this.placeholder('sfx', sfx)}`,
    );
    out = out.replace(
      /^([a-z0-9.<>:-]+)\.([0-9a-f]{16})$/g,
      (_m, p: string, sfx: string) => `${p}.${this.placeholder('sfx', sfx)}`,
    );
    // Also inside a quoted object (04 #8 quotes the patched object: `\"resourceVersion\":\"5\"`).
    out = out.replace(
      /(\\?)"resourceVersion\1":\1"(\d+)\1"/g,
      (_m, q: string, rv: string) => `${q}"resourceVersion${q}":${q}"${this.rv(rv) as string}${q}"`,
    );
    out = out.replace(
      /(precondition|in record) \((\d+)\)/g,
      (_m, w: string, rv: string) => `${w} (${this.rv(rv) as string})`,
    );
    out = out.replace(
      /too old resource version: (\d+) \((\d+)\)/,
      (_m, x: string) => `too old resource version: ${this.rv(x) as string} (<rv:watch-cache-oldest>)`,
    );
    out = out.replace(
      /Too large resource version: (\d+), current: (\d+)/,
      (_m, x: string) =>
        `Too large resource version: ${this.rv(x) as string}, current: <rv:watch-cache-current>`,
    );
    return out;
  }

  /**
   * A name made from generateName (a controller's pod) that the replay put into a request before
   * any answer showed it (09 #14: the recorder found the pod's name by listing, unrecorded).
   */
  observeGenerated(name: string, generateName: string): void {
    const sfx = name.slice(generateName.length);
    if (!this.generated.has(name) && sfx.length === 5) {
      this.generated.set(name, `${this.string(generateName)}${this.placeholder('sfx', sfx)}`);
    }
  }

  /** Finds generateName'd objects first so every later mention of their name is normalized. */
  private collectGenerated(v: unknown): void {
    if (Array.isArray(v)) return v.forEach((x) => this.collectGenerated(x));
    if (!v || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    const meta = o.metadata as Record<string, unknown> | undefined;
    if (
      meta &&
      typeof meta.generateName === 'string' &&
      typeof meta.name === 'string' &&
      meta.name.startsWith(meta.generateName)
    ) {
      this.observeGenerated(meta.name, meta.generateName);
    }
    for (const x of Object.values(o)) this.collectGenerated(x);
  }

  /** `kind`: 'object' (a response body or event object), 'bookmark'. */
  body(v: unknown, role: 'body' | 'bookmark' = 'body'): unknown {
    this.collectGenerated(v);
    return this.walk(v, role, true);
  }

  private walk(v: unknown, role: 'body' | 'bookmark', top: boolean): unknown {
    if (typeof v === 'string') return this.string(v);
    if (Array.isArray(v)) return v.map((x) => this.walk(x, role, false));
    if (!v || typeof v !== 'object') return v;
    const o = v as Record<string, unknown>;
    const isList = Array.isArray(o.items) || o.kind === 'Table';
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(o)) {
      const key = this.string(k.replace(UUID, (u) => this.placeholder('uid', u)));
      if (k === 'metadata' && x && typeof x === 'object' && !Array.isArray(x)) {
        const meta = { ...(x as Record<string, unknown>) };
        const rv = meta.resourceVersion;
        const cont = meta.continue;
        delete meta.resourceVersion;
        delete meta.continue;
        const m = this.walk(meta, role, false) as Record<string, unknown>;
        if (typeof cont === 'string') m.continue = cont === '' ? '' : this.placeholder('continue', cont);
        if (typeof rv === 'string') {
          if (top && role === 'bookmark') m.resourceVersion = `<bookmark-rv:${++this.bookmarkRv}>`;
          else if (isList) m.resourceVersion = `<list-rv:${++this.listRv}>`;
          else m.resourceVersion = this.rv(rv);
        }
        out[key] = m;
      } else if (k === 'resourceVersion') {
        out[key] = this.rv(x);
      } else {
        out[key] = this.walk(x, role, false);
      }
    }
    return out;
  }
}
