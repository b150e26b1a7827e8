import type { Ctx } from '../../deps.js';
import { BadRequestError } from '../../platform/errors.js';
import type { Page } from '../../platform/http/pagination.js';

export interface Vasp {
  vaspName: string;
  url?: string;
}

/** The cursor names the last VASP of the page: the list is ordered by name, so a page continues strictly after it. */
const encode = (name: string) => Buffer.from(JSON.stringify({ after: name }), 'utf8').toString('base64url');
function decode(cursor: string | undefined): string | undefined {
  if (!cursor) return undefined;
  try {
    const after = (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { after?: unknown }).after;
    if (typeof after === 'string') return after;
  } catch {
    // fall through
  }
  throw new BadRequestError('INVALID_INPUT', 'cursor is not valid.', { errors: [{ field: 'cursor', message: 'Not a cursor returned by this API.' }] });
}

/** GET /vasps (REF listVasps): the configured directory (VASP_DIRECTORY), by name, paginated like every list. Errors: 400 INVALID_INPUT (cursor). */
export function listVasps(ctx: Ctx, q: { limit: number; cursor?: string }): Page<Vasp> {
  const after = decode(q.cursor);
  const all = ctx.config.VASP_DIRECTORY;
  const start = after === undefined ? 0 : all.findIndex((v) => v.vaspName.localeCompare(after, 'en') > 0);
  const rest = start < 0 ? [] : all.slice(start);
  const data = rest.slice(0, q.limit);
  const hasMore = rest.length > q.limit;
  return { data, hasMore, ...(hasMore ? { nextCursor: encode(data[data.length - 1]!.vaspName) } : {}) };
}
