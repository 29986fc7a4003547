/**
 * Placeholder binding (README "How to use" 1): where the recorded answer has `<rv:3>` and the
 * emulator answered "17", `<rv:3>` means "17" in later requests.
 */
const PLACEHOLDER = /<(uid|rv|list-rv|bookmark-rv|continue|sfx|sched):\d+>/g;

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export class Bindings {
  readonly values = new Map<string, string>();

  /** Walks recorded and actual side by side and binds every placeholder it can line up. */
  align(recorded: unknown, actual: unknown): void {
    if (typeof recorded === 'string' && typeof actual === 'string') return this.alignString(recorded, actual);
    if (Array.isArray(recorded) && Array.isArray(actual)) {
      recorded.forEach((r, i) => this.align(r, actual[i]));
      return;
    }
    if (recorded && actual && typeof recorded === 'object' && typeof actual === 'object') {
      const a = actual as Record<string, unknown>;
      for (const [k, r] of Object.entries(recorded as Record<string, unknown>)) {
        if (k in a) this.align(r, a[k]);
      }
    }
  }

  private alignString(recorded: string, actual: string): void {
    const names = recorded.match(PLACEHOLDER);
    if (!names) return;
    const parts = recorded.split(PLACEHOLDER);
    // split with a capture group interleaves the captured category; rebuild from the names instead.
    const literals = recorded.split(new RegExp(PLACEHOLDER.source)).filter((_, i) => i % 2 === 0);
    void parts;
    const re = new RegExp(`^${literals.map(escapeRe).join('(.+?)')}$`);
    const m = re.exec(actual);
    if (!m) return;
    names.forEach((n, i) => {
      if (!this.values.has(n) && n !== '<rv:watch-cache-oldest>') this.values.set(n, m[i + 1]!);
    });
  }

  /** Replaces bound placeholders in a request string; `fresh` supplies values for unbound ones. */
  substitute(text: string, fresh: (placeholder: string) => string): string {
    return text.replace(PLACEHOLDER, (p) => {
      let v = this.values.get(p);
      if (v === undefined) {
        v = fresh(p);
        this.values.set(p, v);
      }
      return v;
    });
  }
}
