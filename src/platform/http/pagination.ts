import { z } from 'zod';
import { BadRequestError } from '../errors.js';

/** Decision A4: `limit` 1–100 (default 20) and an opaque cursor; never an offset. */
export const paginationQuery = {
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(512).optional(),
};

export interface Page<T> {
  data: T[];
  hasMore: boolean;
  nextCursor?: string;
}

/**
 * The cursor encodes the last row's id. Ids are UUIDv7 so they order by creation; listing by id
 * descending and continuing strictly below the cursor never repeats or skips a row that existed
 * when the first page was read, however many rows are inserted meanwhile.
 */
export function encodeCursor(lastId: string): string {
  return Buffer.from(JSON.stringify({ id: lastId }), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string | undefined): string | undefined {
  if (!cursor) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { id?: unknown };
    if (typeof parsed.id === 'string' && parsed.id.length < 200) return parsed.id;
  } catch {
    // fall through
  }
  throw new BadRequestError('INVALID_INPUT', 'cursor is not valid.', { errors: [{ field: 'cursor', message: 'Not a cursor returned by this API.' }] });
}

/** Turns `limit + 1` fetched rows into a page. */
export function toPage<R extends { id: string }, T>(rows: R[], limit: number, map: (r: R) => T): Page<T> {
  const hasMore = rows.length > limit;
  const slice = hasMore ? rows.slice(0, limit) : rows;
  const page: Page<T> = { data: slice.map(map), hasMore };
  if (hasMore) page.nextCursor = encodeCursor(slice[slice.length - 1]!.id);
  return page;
}
