/**
 * REF leaves an optional field out while it has no value where this server used to send `null`
 * (issue 13). Resources list the optional keys they drop when null; required-nullable keys of the
 * spec (e.g. `customerId` of a platform-owned account) keep their `null`.
 */
export function omitAbsent<T extends Record<string, unknown>, K extends keyof T>(resource: T, optionalKeys: readonly K[]): T {
  const out: Record<string, unknown> = { ...resource };
  for (const k of optionalKeys) if (out[k as string] === null || out[k as string] === undefined) delete out[k as string];
  return out as T;
}
