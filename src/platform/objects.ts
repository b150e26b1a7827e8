/**
 * `{ ...a, ...b }` (later keys win) for code on a hot path. Node 20's V8 adds each property of an object
 * made by spread through a slow path: `{ ...row, k: v }` costs ~0.5 µs a property added after the
 * spread, and the money path's rows have 60 fields (measured: the two PENDING rows of a quote cost ~90 µs
 * a payment, a quarter of the API's JavaScript). Object.assign onto a fresh object takes cached shape
 * transitions: ~2 µs for the same rows. Small objects off the hot path keep the spread.
 */
export function merged<A extends object, B extends object>(a: A, b: B): Omit<A, keyof B> & B;
export function merged<A extends object, B extends object, C extends object>(a: A, b: B, c: C): Omit<Omit<A, keyof B> & B, keyof C> & C;
export function merged(...parts: object[]): object {
  return Object.assign({}, ...parts);
}
