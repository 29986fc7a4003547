/** Field paths spelled as apimachinery's field.Path prints them: `a.b`, `properties[spec]`, `[0]`. */

export function child(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}

export function key(path: string, k: string): string {
  return `${path}[${k}]`;
}

export function index(path: string, i: number): string {
  return `${path}[${i}]`;
}
