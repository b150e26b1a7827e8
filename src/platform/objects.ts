/**
 * `{ ...a, ...b }` (later keys win) for code on a hot path. Node 20's V8 makes this slow for the money
 * path's 60-field rows: each property added after a spread takes a slow path (~0.5 µs a property), and
 * Object.assign onto a fresh object turns it into a dictionary past a dozen properties, which every
 * later copy and read pays for (measured in the API: ~50 µs to copy a PENDING transaction row into its
 * PROCESSING state). So the copy is an object literal, compiled once per shape (the keys of `a`, then
 * those of `b` not in it, as the spread orders them): ~1.5 µs for the same row, and the result is an
 * ordinary fast object. Shapes come from code; past MAX_SHAPES, the spread.
 */
export function merged<A extends object, B extends object>(a: A, b: B): Omit<A, keyof B> & B;
export function merged<A extends object, B extends object, C extends object>(a: A, b: B, c: C): Omit<Omit<A, keyof B> & B, keyof C> & C;
export function merged(...parts: object[]): object {
  return parts.reduce((a, b) => mergeTwo(a, b));
}

type Copier = (a: object, b: object) => object;

const copiers = new Map<string, Copier>();
const MAX_SHAPES = 1000;

function mergeTwo(a: object, b: object): object {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  const shape = `${ka.join(',')}|${kb.join(',')}`;
  let copy = copiers.get(shape);
  if (!copy) {
    // A literal's `"__proto__": v` would set the prototype, not a property.
    if (copiers.size >= MAX_SHAPES || ka.includes('__proto__') || kb.includes('__proto__')) return { ...a, ...b };
    copy = compile(ka, kb);
    copiers.set(shape, copy);
  }
  return copy(a, b);
}

function compile(ka: string[], kb: string[]): Copier {
  const fromB = new Set(kb);
  // Keys are quoted as JSON strings, which are JavaScript string literals: no key can be code.
  const q = (k: string) => JSON.stringify(k);
  const fields = [...ka.map((k) => `${q(k)}: ${fromB.has(k) ? 'b' : 'a'}[${q(k)}]`), ...kb.filter((k) => !ka.includes(k)).map((k) => `${q(k)}: b[${q(k)}]`)];
  return new Function('a', 'b', `return { ${fields.join(', ')} };`) as Copier;
}
