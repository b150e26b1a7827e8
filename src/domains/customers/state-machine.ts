import type { TenantTx } from '../../platform/db.js';
import { ConflictError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';

/** One move of a lifecycle: allowed from any of `from`, lands on `to`. `null` is "absent" (a channel not required). */
export interface Transition<S> {
  readonly from: readonly S[];
  readonly to: S;
}

export type TransitionTable<S, E extends string = string> = Readonly<Record<E, Transition<S>>>;

/** A lifecycle declared once as data: its name (for history and errors) and its transition table. */
export interface StateMachine<S, E extends string> {
  readonly name: string;
  readonly transitions: TransitionTable<S, E>;
}

/** An illegal move, or a lost race (the row moved meanwhile): the same 409 either way. */
export class IllegalTransitionError extends ConflictError {
  constructor(machine: string, resourceId: string, event: string, current: unknown) {
    super('CONFLICT', `${machine} ${resourceId} cannot ${event} while ${current ?? 'absent'}.`, { resourceId, event, status: current ?? null });
  }
}

export function canTransition<S, E extends string>(machine: StateMachine<S, E>, event: E, current: S): boolean {
  return machine.transitions[event].from.includes(current);
}

/**
 * The only way a status moves. `cas` performs the compare-and-set update (`updateMany where
 * {id, status in from}`) and returns how many rows changed; anything but exactly one means the
 * move was illegal or lost a race, and raises IllegalTransitionError, which rolls back the caller's
 * transaction with everything else it wrote (the outbox event included). The move is recorded in
 * onboarding_status_changes in the same transaction.
 */
export async function transition<S extends string | null, E extends string>(
  tx: TenantTx,
  machine: StateMachine<S, E>,
  event: E,
  target: { resourceId: string; current: S },
  cas: (from: readonly S[], to: S) => Promise<number>,
): Promise<S> {
  const t = machine.transitions[event];
  if (!t.from.includes(target.current)) throw new IllegalTransitionError(machine.name, target.resourceId, event, target.current);
  const changed = await cas(t.from, t.to);
  if (changed !== 1) throw new IllegalTransitionError(machine.name, target.resourceId, event, target.current);
  await tx.onboardingStatusChange.create({
    data: { id: newId('StatusChange'), machine: machine.name, resourceId: target.resourceId, event, fromStatus: target.current, toStatus: t.to } as any,
  });
  return t.to;
}

/** Prisma filter for "column in from", where `from` may contain null (absent). */
export function inStates<S extends string | null>(column: string, from: readonly S[]): Record<string, unknown> {
  const values = from.filter((s): s is Exclude<S, null> => s !== null);
  const clauses: Record<string, unknown>[] = [];
  if (values.length) clauses.push({ [column]: { in: values } });
  if (values.length !== from.length) clauses.push({ [column]: null });
  return clauses.length === 1 ? clauses[0]! : { OR: clauses };
}
