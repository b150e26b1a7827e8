import { z } from 'zod';

/**
 * Inclusive time-window bounds of list filters (`startDate`, `endDate`). REF types them `date-time` but its own
 * client documents date-only values (`grid transactions list --start-date 2024-01-01`, issue 25), so both are
 * accepted: a date-only start is the first instant of that UTC day, a date-only end its last millisecond, so
 * `startDate=D&endDate=D` is the whole day D.
 */
const dateOrDateTime = z.union([z.iso.datetime({ offset: true }), z.iso.date()], { error: 'Must be an ISO 8601 date (YYYY-MM-DD) or date-time with offset.' });

export const windowStart = dateOrDateTime.transform((s) => new Date(s.length === 10 ? `${s}T00:00:00.000Z` : s));
export const windowEnd = dateOrDateTime.transform((s) => new Date(s.length === 10 ? `${s}T23:59:59.999Z` : s));
