import { ConflictError } from './errors.js';

/** A lifecycle as data: each event names the statuses it may start from and the one it ends in. */
export type TransitionTable<S extends string> = Record<string, { from: readonly S[]; to: S }>;

export class IllegalTransitionError extends ConflictError {
  constructor(what: string, event: string, from: string | null) {
    super('INVALID_STATE_TRANSITION', `${what} cannot ${event} from ${from ?? 'its current state'}.`, { event, from });
  }
}

/** The target status of `event` from `from`, or an IllegalTransitionError. */
export function nextStatus<S extends string>(table: TransitionTable<S>, what: string, event: string, from: S): S {
  const t = table[event];
  if (!t || !t.from.includes(from)) throw new IllegalTransitionError(what, event, from);
  return t.to;
}
