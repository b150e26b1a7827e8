import { BadRequestError } from '../errors.js';

/**
 * Issue 30: keyset pagination that an index serves whatever the filter.
 *
 * Lists order by id (UUIDv7: creation order) and continue strictly after the last id seen
 * (pagination.ts). Two shapes need more:
 * - a time window (`startDate`/`endDate`) is served by `(platform_id, created_at, id)`, so the page
 *   is ordered by `(created_at, id)` and the cursor carries the last row's `created_at` too;
 * - a filter that matches either of two columns (a currency sent or received, an account on either
 *   side) is two index scans in the same order, merged here: each returns at most `limit + 1` rows,
 *   so a page reads at most `branches × (limit + 1)` rows however large the table.
 */
export interface Keyset {
  id: string;
  /** The last row's created_at, for lists ordered by (created_at, id). */
  at?: Date;
}

export function encodeKeyset(last: { id: string; createdAt?: Date }, byTime: boolean): string {
  const body = byTime && last.createdAt ? { id: last.id, at: last.createdAt.toISOString() } : { id: last.id };
  return Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
}

export function decodeKeyset(cursor: string | undefined): Keyset | undefined {
  if (!cursor) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { id?: unknown; at?: unknown };
    if (typeof parsed.id === 'string' && parsed.id.length < 200) {
      const at = typeof parsed.at === 'string' ? new Date(parsed.at) : undefined;
      if (at === undefined || !Number.isNaN(at.getTime())) return at ? { id: parsed.id, at } : { id: parsed.id };
    }
  } catch {
    // fall through
  }
  throw new BadRequestError('INVALID_INPUT', 'cursor is not valid.', { errors: [{ field: 'cursor', message: 'Not a cursor returned by this API.' }] });
}

type Order = 'asc' | 'desc';

/** The Prisma `where` that continues after `k`: on id alone, or on (createdAt, id) for a time window. */
export function afterKeyset(k: Keyset | undefined, order: Order, byTime: boolean): Record<string, unknown> {
  if (!k) return {};
  const op = order === 'desc' ? 'lt' : 'gt';
  if (!byTime || !k.at) return { id: { [op]: k.id } };
  return { OR: [{ createdAt: { [op]: k.at } }, { createdAt: k.at, id: { [op]: k.id } }] };
}

/** Prisma `orderBy` matching afterKeyset. */
export function keysetOrder(order: Order, byTime: boolean): Array<Record<string, Order>> {
  return byTime ? [{ createdAt: order }, { id: order }] : [{ id: order }];
}

/** Compares two rows in the list's order (ascending; negate for descending). */
function compareRows(a: { id: string; createdAt?: Date }, b: { id: string; createdAt?: Date }, byTime: boolean): number {
  if (byTime && a.createdAt && b.createdAt && a.createdAt.getTime() !== b.createdAt.getTime()) return a.createdAt.getTime() - b.createdAt.getTime();
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * The first `take` rows, in order, of the union of branches each already ordered and limited to
 * `take` (one index scan each): a row found by two branches is kept once.
 */
export async function mergeBranches<R extends { id: string; createdAt?: Date }>(branches: Array<() => Promise<R[]>>, take: number, order: Order, byTime: boolean): Promise<R[]> {
  if (branches.length === 1) return branches[0]!();
  const lists = await Promise.all(branches.map((b) => b()));
  const seen = new Set<string>();
  const sign = order === 'desc' ? -1 : 1;
  const merged = lists.flat().sort((a, b) => sign * compareRows(a, b, byTime));
  const out: R[] = [];
  for (const r of merged) {
    if (seen.has(r.id)) continue;
    seen.add(r.id);
    out.push(r);
    if (out.length === take) break;
  }
  return out;
}

/** `limit + 1` rows into a page whose cursor continues in the same order. */
export function toKeysetPage<R extends { id: string; createdAt?: Date }, T>(rows: R[], limit: number, byTime: boolean, map: (r: R) => T): { data: T[]; hasMore: boolean; nextCursor?: string } {
  const hasMore = rows.length > limit;
  const slice = hasMore ? rows.slice(0, limit) : rows;
  const page: { data: T[]; hasMore: boolean; nextCursor?: string } = { data: slice.map(map), hasMore };
  if (hasMore) page.nextCursor = encodeKeyset(slice[slice.length - 1]!, byTime);
  return page;
}
