import { randomUUID } from 'node:crypto';
import type { KubeEmulator } from '../../support/kube/emulator';
import { rfc3339 } from '../../support/kube/types';
import { Bindings } from './bind';
import { ReplayClock } from './clock';
import { canonical, stripInformative, unorderStatus, withoutOpenShiftCarry } from './compare';
import { openWatch, send } from './http';
import { Normalizer } from './normalize';
import type { Exchange, Transcript } from './transcript';

/** What a plan's hook may use besides the emulator. */
interface ReplayHookContext {
  clock: ReplayClock;
  /**
   * Binds the placeholder of a generated name's suffix (`<sfx:3>` in `fail-<sfx:3>`) to an object
   * the emulator made, for requests that name it before any recorded answer did.
   */
  bindGeneratedName(placeholder: string, meta: { name: string; generateName: string }): void;
  /**
   * Binds a `<uid:N>` or `<rv:N>` placeholder to a value the emulator holds, for requests that
   * carry it before any recorded answer showed it (the recorder read it unrecorded).
   */
  bindValue(placeholder: string, value: string): void;
}

type ReplayHook = (emu: KubeEmulator, ctx: ReplayHookContext) => void | Promise<void>;

export interface ReplayPlan {
  /** Exchanges the emulator refuses loudly (asserted: 501 "not emulated: …"), with the reason. */
  refused: Record<number, string>;
  /** Exchanges not sent because they need a refused one's effect, with the reason. */
  skipped: Record<number, string>;
  /** Test-side actions that stand in for what happened between exchanges (notes, controllers). */
  before?: Record<number, ReplayHook>;
  after?: Record<number, ReplayHook>;
  /** Test-side actions while a watch is open (a controller acting while the recorder watched). */
  whileOpen?: Record<number, ReplayHook>;
  /** The value of `<secret>` (a normalized token) in a request body. */
  secret?: (emu: KubeEmulator) => string;
  /** Authorization header values for exchanges with an `auth` field. */
  auth?: (e: Exchange, emu: KubeEmulator, bindings: Bindings) => string | undefined;
  /**
   * Narrows the recorded body before comparing (`bodyFiltered` exchanges, discovery of kinds the
   * emulator does not serve); gets the emulator's normalized answer to decide what to keep.
   */
  filter?: Record<number, (recorded: unknown, mine: unknown) => unknown>;
  /**
   * Exchanges the recorded client sent as protobuf (08 #30, kubectl), with the reason: the
   * transcript has the request as JSON and no answer body, so the replay sends JSON and compares
   * the status and warnings only.
   */
  protobuf?: Record<number, string>;
  /** managedFields are compared in this file's answers too (elsewhere they are informative). */
  managedFields?: boolean;
  /**
   * The recording's writes all fell in one second, as this says its answers show: the replay
   * holds the emulator's clock in one second (ReplayClock `held`).
   */
  oneSecond?: string;
  /** Narrows both bodies the same way (the recorder's own `bodyFiltered`). */
  filterBoth?: Record<number, (body: unknown) => unknown>;
  /**
   * Values for placeholders of a request body that normalization made ambiguous and the step
   * describes (`<time.fraction>` with 3 or 9 digits, `<microtime+offset>`), by exchange.
   */
  literals?: Record<number, Record<string, () => string>>;
}

export interface ExchangeResult {
  i: number;
  outcome: 'match' | 'mismatch' | 'refused' | 'not-refused' | 'skipped';
  detail?: string;
}

interface Actual {
  e: Exchange;
  fresh: [string, string][];
  /** Generated names hooks bound before this exchange was compared. */
  generatedNames: { name: string; generateName: string }[];
  status: number;
  warnings: string[];
  body?: unknown;
  events?: { type: string; object: Record<string, unknown> }[];
  end?: string;
}

const NODE_FETCH_USER_AGENT = 'node-fetch/1.0 (+https://github.com/bitinn/node-fetch)';

function warningsOf(h: Record<string, string | string[] | undefined>): string[] {
  const w = h.warning;
  if (w === undefined) return [];
  // node joins repeated headers with ', '; the emulator sends one value per header line.
  return Array.isArray(w) ? w : w.split(/, (?=299 )/);
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

let lastMicroTime = 0;

/**
 * `<time>` as the replay clock's second (a value the recorder read back is one the emulator
 * stored); `<microtime>` strictly increasing: two renews the recorder sent in the same millisecond
 * still differ, as their recorded values did (a repeated value would make the second write a no-op
 * that keeps the resourceVersion).
 */
function nowRfc3339(clock: ReplayClock, micro: boolean): string {
  if (!micro) return rfc3339(clock.now());
  lastMicroTime = Math.max(Date.now() * 1000, lastMicroTime + 1);
  const millis = Math.floor(lastMicroTime / 1000);
  const micros = String(lastMicroTime % 1000).padStart(3, '0');
  return new Date(millis).toISOString().replace(/Z$/, `${micros}Z`);
}

/** Shape match for polled exchanges: placeholders in the recording match any value. */
function pollMatches(recorded: unknown, actual: unknown): boolean {
  if (typeof recorded === 'string' && typeof actual === 'string') {
    const literals = recorded.split(/<[a-z.+-]+(?::[a-z0-9-]+)?>/);
    if (literals.length === 1) return recorded === actual;
    const re = new RegExp(
      `^${literals.map((l) => l.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.+?')}$`,
      's',
    );
    return re.test(actual);
  }
  if (Array.isArray(recorded)) {
    return (
      Array.isArray(actual) &&
      recorded.length === actual.length &&
      recorded.every((r, i) => pollMatches(r, actual[i]))
    );
  }
  if (recorded && typeof recorded === 'object') {
    if (!actual || typeof actual !== 'object' || Array.isArray(actual)) return false;
    const r = stripInformative(recorded) as Record<string, unknown>;
    const a = stripInformative(actual) as Record<string, unknown>;
    const keys = new Set([...Object.keys(r), ...Object.keys(a)]);
    return [...keys].every((k) => pollMatches(r[k], a[k]));
  }
  return recorded === actual;
}

export async function replay(
  t: Transcript,
  emu: KubeEmulator,
  plan: ReplayPlan,
  clock = new ReplayClock(),
): Promise<ExchangeResult[]> {
  const bindings = new Bindings();
  let generatedNames: Actual['generatedNames'] = [];
  const hookContext: ReplayHookContext = {
    clock,
    bindGeneratedName(placeholder, meta) {
      bindings.values.set(placeholder, meta.name.slice(meta.generateName.length));
      generatedNames.push({ name: meta.name, generateName: meta.generateName });
    },
    bindValue(placeholder, value) {
      bindings.values.set(placeholder, value);
      boundValues.push([placeholder, value]);
    },
  };
  /** Values hooks bound before the exchange being sent: numbered first when it is normalized. */
  let boundValues: [string, string][] = [];
  const takeBound = () => {
    const taken = boundValues;
    boundValues = [];
    return taken;
  };
  /** Hands the generated names bound so far to the exchange being recorded. */
  const takeGeneratedNames = () => {
    const taken = generatedNames;
    generatedNames = [];
    return taken;
  };
  const actuals = new Map<number, Actual>();
  const results = new Map<number, ExchangeResult>();
  const during = new Set(t.exchanges.flatMap((e) => e.openDuring ?? []));
  const byI = new Map(t.exchanges.map((e) => [e.i, e]));

  const buildRequest = (e: Exchange) => {
    const fresh: [string, string][] = [];
    const freshValue = (p: string): string => {
      let v: string;
      if (p.startsWith('<uid:')) v = randomUUID();
      else if (p.startsWith('<rv:'))
        v = String(emu.store.currentRv() + 10000000); // 06 #37 note
      else if (p.startsWith('<continue:')) v = 'nonsense';
      else throw new Error(`exchange ${e.i}: no value for ${p}`);
      fresh.push([p, v]);
      return v;
    };
    const path = bindings.substitute(
      e.request.path.replace(/%3C([a-z-]+)%3A(\d+)%3E/g, '<$1:$2>'),
      freshValue,
    );
    let body: string | undefined;
    if (e.request.rawBody !== undefined) body = e.request.rawBody;
    else if (e.request.body !== undefined) body = JSON.stringify(e.request.body);
    if (body !== undefined) {
      if (body.includes('<secret>')) {
        if (!plan.secret) throw new Error(`exchange ${e.i}: no value for <secret>`);
        body = body.replace(/<secret>/g, plan.secret(emu));
      }
      for (const [placeholder, value] of Object.entries(plan.literals?.[e.i] ?? {})) {
        body = body.split(placeholder).join(value());
      }
      body = bindings
        .substitute(body, freshValue)
        .replace(/<microtime>/g, nowRfc3339(clock, true))
        .replace(/<time>/g, nowRfc3339(clock, false))
        // The recorded parse errors show what these were (10 #11 `789Z`: nine digits; #12 `.5+02:00`).
        .replace(/<time\.fraction>/g, nowRfc3339(clock, false).replace(/Z$/, '.123456789Z'))
        .replace(/<time\.fraction\+offset>/g, nowRfc3339(clock, false).replace(/Z$/, '.5+02:00'));
    }
    // The recorder sent client-node's User-Agent without recording it (README "The requests"):
    // writes without fieldManager are managed as `node-fetch`.
    const headers: Record<string, string> = { 'user-agent': NODE_FETCH_USER_AGENT, ...e.request.headers };
    if (plan.protobuf?.[e.i]) {
      headers['content-type'] = 'application/json';
      headers.accept = 'application/json';
    }
    const auth = e.auth ? plan.auth?.(e, emu, bindings) : `Bearer ${emu.adminToken}`;
    if (auth) headers.authorization = auth;
    return { path, body, headers, fresh };
  };

  const plain = async (e: Exchange): Promise<void> => {
    if (plan.skipped[e.i]) {
      results.set(e.i, { i: e.i, outcome: 'skipped', detail: plan.skipped[e.i] });
      return;
    }
    await plan.before?.[e.i]?.(emu, hookContext);
    const deadline = Date.now() + (e.polled ? 8000 : 0);
    for (;;) {
      const r = buildRequest(e);
      const res = await send(emu.url, e.request.method, r.path, r.headers, r.body);
      const body = parse(res.text);
      if (plan.refused[e.i]) {
        const ok =
          res.status === 501 &&
          typeof body === 'object' &&
          /^not emulated: /.test((body as { message?: string }).message ?? '');
        results.set(e.i, {
          i: e.i,
          outcome: ok ? 'refused' : 'not-refused',
          detail: ok ? plan.refused[e.i] : `${res.status} ${res.text.slice(0, 300)}`,
        });
        break;
      }
      // Filtered bodies cannot be shape-matched whole; their poll condition is the status.
      const filtered = Boolean(plan.filter?.[e.i] ?? plan.filterBoth?.[e.i]);
      const polledOk =
        res.status === e.response.status &&
        (filtered || pollMatches(withoutOpenShiftCarry(e.response.body), body));
      if (e.polled && !polledOk && Date.now() < deadline) {
        await new Promise((s) => setTimeout(s, 100));
        continue;
      }
      bindings.align(e.response.body, body);
      actuals.set(e.i, {
        e,
        fresh: [...takeBound(), ...r.fresh],
        generatedNames: takeGeneratedNames(),
        status: res.status,
        warnings: warningsOf(res.headers),
        body,
      });
      break;
    }
    await plan.after?.[e.i]?.(emu, hookContext);
  };

  const watchExchange = async (e: Exchange): Promise<void> => {
    if (plan.skipped[e.i]) {
      results.set(e.i, { i: e.i, outcome: 'skipped', detail: plan.skipped[e.i] });
      return;
    }
    await plan.before?.[e.i]?.(emu, hookContext);
    const r = buildRequest(e);
    const stream = openWatch(emu.url, r.path, r.headers);
    const status = await stream.status;
    for (const j of e.openDuring ?? []) await plain(byI.get(j)!);
    await plan.whileOpen?.[e.i]?.(emu, hookContext);
    const recorded = e.response.events ?? [];
    const serverEnds = (e.response.end ?? '').startsWith('the server ended');
    const timeout = Number(/timeoutSeconds=(\d+)/.exec(e.request.path)?.[1] ?? 30) * 1000;
    const until = serverEnds
      ? () => false
      : e.nondeterministic
        ? (evs: { type: string }[]) => evs.some((x) => x.type === 'DELETED')
        : (evs: unknown[]) => evs.length >= recorded.length;
    const how = status === 200 ? await stream.finished(until, Math.min(timeout, 15000) + 2000) : 'ended';
    const text = status === 200 ? '' : await stream.body;
    const events = [...stream.events];
    recorded.forEach((ev, k) => bindings.align(ev, events[k]));
    actuals.set(e.i, {
      e,
      fresh: [...takeBound(), ...r.fresh],
      generatedNames: takeGeneratedNames(),
      status,
      warnings: warningsOf(await stream.headers),
      body: status === 200 ? undefined : parse(text),
      events,
      end: how === 'ended' ? 'server' : how === 'stopped' ? 'recorder' : 'timeout',
    });
    await plan.after?.[e.i]?.(emu, hookContext);
  };

  for (const e of t.exchanges) {
    if (during.has(e.i)) continue;
    if (e.watch) await watchExchange(e);
    else await plain(e);
  }

  // Normalize in file order (as the recorder did) and compare.
  const norm = new Normalizer();
  for (const e of t.exchanges) {
    const a = actuals.get(e.i);
    if (!a) {
      norm.reserve({ request: e.request, response: e.response });
      continue;
    }
    for (const [p, v] of a.fresh) {
      const cat = /^<([a-z]+)/.exec(p)![1] as 'uid' | 'rv' | 'continue';
      norm.observe(cat, v);
    }
    for (const g of a.generatedNames) norm.observeGenerated(g.name, g.generateName);
    observeGeneratedInRefusal(e, a.body, norm);
    results.set(e.i, compareOne(e, a, norm, plan));
  }
  return t.exchanges.map((e) => results.get(e.i) ?? { i: e.i, outcome: 'mismatch', detail: 'not run' });
}

/**
 * A create with generateName that the server refused names the generated object only in the
 * Status (18 #53): the recorder normalized that name as generated, so the replay does too.
 */
function observeGeneratedInRefusal(e: Exchange, body: unknown, norm: Normalizer): void {
  const generateName = (e.request.body as { metadata?: { generateName?: unknown } } | undefined)?.metadata
    ?.generateName;
  if (typeof generateName !== 'string' || !generateName) return;
  const name = (body as { kind?: string; details?: { name?: unknown } } | undefined)?.details?.name;
  if (typeof name === 'string' && name.startsWith(generateName) && name.length === generateName.length + 5) {
    norm.observeGenerated(name, generateName);
  }
}

/** Whether an exchange's managedFields are compared too (plans list the files whose entries match). */
function managedFieldsCompared(plan: ReplayPlan): boolean {
  return Boolean(plan.managedFields) || Boolean(process.env.REPLAY_MANAGED_FIELDS);
}

function compareOne(e: Exchange, a: Actual, norm: Normalizer, plan: ReplayPlan): ExchangeResult {
  const problems: string[] = [];
  if (a.status !== e.response.status) problems.push(`status ${a.status} != recorded ${e.response.status}`);
  const recW = (e.response.headers.warning as string[] | undefined) ?? [];
  const actW = a.warnings.map((w) => norm.body(w) as string);
  if (canonical(actW) !== canonical(recW))
    problems.push(`warnings ${JSON.stringify(actW)} != ${JSON.stringify(recW)}`);
  if (!plan.protobuf?.[e.i] && (e.response.body !== undefined || a.body !== undefined)) {
    const keep = managedFieldsCompared(plan);
    let mine = stripInformative(norm.body(a.body), keep);
    let theirs = stripInformative(withoutOpenShiftCarry(e.response.body), keep);
    if (plan.filter?.[e.i]) theirs = plan.filter[e.i]!(theirs, mine);
    if (plan.filterBoth?.[e.i]) {
      theirs = plan.filterBoth[e.i]!(theirs);
      mine = plan.filterBoth[e.i]!(mine);
    }
    if (e.unordered) {
      mine = unorderStatus(mine);
      theirs = unorderStatus(theirs);
    }
    if (canonical(mine) !== canonical(theirs))
      problems.push(`body differs:\n${diff(canonical(theirs), canonical(mine))}`);
  }
  if (e.watch && e.response.status === 200) {
    let mine = (a.events ?? []).map((ev) => ({
      type: ev.type,
      object: stripInformative(
        norm.body(ev.object, ev.type === 'BOOKMARK' ? 'bookmark' : 'body'),
        managedFieldsCompared(plan),
      ),
    }));
    let theirs = (e.response.events ?? []).map((ev) => ({
      type: ev.type,
      object: stripInformative(withoutOpenShiftCarry(ev.object), managedFieldsCompared(plan)),
    }));
    if (e.nondeterministic) {
      // 15 #4: only the first MODIFIED and the final DELETED are stable.
      const squash = (l: typeof mine) =>
        l.filter((ev, k) => !(ev.type === 'MODIFIED' && l[k - 1]?.type === 'MODIFIED'));
      mine = squash(mine);
      theirs = squash(theirs);
      mine = mine.map((ev, k) => (k === mine.length - 1 ? { type: ev.type, object: {} } : ev));
      theirs = theirs.map((ev, k) => (k === theirs.length - 1 ? { type: ev.type, object: {} } : ev));
    }
    if (canonical(mine) !== canonical(theirs))
      problems.push(`events differ:\n${diff(canonical(theirs), canonical(mine))}`);
    const serverEnds = (e.response.end ?? '').startsWith('the server ended');
    const wantEnd = serverEnds ? 'server' : 'recorder';
    if (a.end !== wantEnd) problems.push(`watch end ${a.end} != ${wantEnd}`);
  }
  return problems.length
    ? { i: e.i, outcome: 'mismatch', detail: problems.join('\n') }
    : { i: e.i, outcome: 'match' };
}

/** A compact line diff: the first differing lines with a little context. */
function diff(expected: string, actual: string): string {
  const a = expected.split('\n');
  const b = actual.split('\n');
  const out: string[] = [];
  const n = Math.max(a.length, b.length);
  for (let k = 0; k < n && out.length < 24; k++) {
    if (a[k] !== b[k]) out.push(`  line ${k}: recorded ${a[k]?.trim()} | emulator ${b[k]?.trim()}`);
  }
  return out.join('\n');
}
