/**
 * REF leaves an optional field out while it has no value where this server used to send `null`
 * (issue 13). Resources list the optional keys they drop when null; required-nullable keys of the
 * spec (e.g. `customerId` of a platform-owned account) keep their `null`.
 */
export function omitAbsent<T extends Record<string, unknown>, K extends keyof T>(resource: T, optionalKeys: readonly K[]): T {
  // A copy without the absent keys, in the same order; not a copy with keys deleted, which leaves
  // V8 a slow (dictionary) object that costs every later read and JSON.stringify.
  const out: Record<string, unknown> = {};
  for (const k in resource) {
    const v = resource[k];
    if ((v === null || v === undefined) && optionalKeys.includes(k as unknown as K)) continue;
    out[k] = v;
  }
  return out as T;
}
