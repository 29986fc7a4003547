const SUFFIXES: Record<string, number> = {
  '': 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};
const QUANTITY = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:([eE][+-]?\d+)|([a-zA-Z]*))$/;

/** The value of a Kubernetes quantity (`500m` → 0.5, `1Gi` → 1073741824), or NaN when it is not one. */
export function quantityValue(quantity: string | number): number {
  if (typeof quantity === 'number') return quantity;
  const match = QUANTITY.exec(quantity.trim());
  if (!match) return Number.NaN;
  const [, number, exponent, suffix] = match;
  if (exponent !== undefined) return Number(`${number}${exponent}`);
  const factor = SUFFIXES[suffix ?? ''];
  return factor === undefined ? Number.NaN : Number(number) * factor;
}

/**
 * Whether two quantities are the same amount. The API server rewrites quantities in canonical
 * form (`0.5` → `500m`, `1024Mi` → `1Gi`), so the text differs while the amount does not.
 */
export function sameQuantity(a: string | number, b: string | number): boolean {
  const x = quantityValue(a);
  const y = quantityValue(b);
  if (Number.isNaN(x) || Number.isNaN(y)) return a === b;
  return Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(x), Math.abs(y));
}
