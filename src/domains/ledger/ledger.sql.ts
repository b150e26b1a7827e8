import type { OneStatement } from '../../platform/one-statement.js';
import { currencyOf } from '../../platform/currencies.js';
import { invariant } from '../../platform/errors.js';
import { newUuid, resourceKey } from '../../platform/ids.js';
import { checkedAfterKeyLookup, plannedForAnyValue } from '../../platform/sql/planner.js';
import { snakeCase } from '../../platform/column-names.js';
import { unbalancedCurrencies, type Posting } from './ledger.model.js';

/**
 * Issue 12 / 24: the journal rule, written once — a balanced journal under a per-platform idempotency key,
 * its entries, the cached balances of the internal accounts it touches moved only while no bucket goes
 * negative, and one INTERNAL_ACCOUNT.BALANCE_UPDATED event per account, from the balances the update
 * returned — as CTEs of a one-statement write. postJournal (ledger.service.ts) runs it alone
 * (`unlessPosted`: a key posted before writes nothing); the money path's writers add it to theirs.
 *
 * CTEs: `<p>_bal` (the balance update; required to change every account, else INSUFFICIENT_FUNDS),
 * `<p>_j`, `<p>_e`, `<p>_ev`. With `after`, the balances move only once those CTEs returned a row
 * (the row lock of the caller's compare-and-set comes first). Without `unlessPosted` a key posted
 * before fails the statement (unique index): callers post under a compare-and-set that makes that impossible.
 *
 * Several journals of one platform written by one statement (the payments worker's
 * batched settlements, issue 12): one insert of the journals, one of their entries, and ONE balance
 * update per account with the journals' deltas summed — a shared account (a platform's hot balance)
 * is locked and moved once for the lot — with one INTERNAL_ACCOUNT.BALANCE_UPDATED per account, from
 * the balance after all of them. With `after`, the balances move only once each of those CTEs
 * returned a row.
 */
export function journalsCtes(
  s: OneStatement,
  j: { platformId: string; at: Date; prefix: string; after: string[]; journals: ReadonlyArray<{ key: string; kind: string; referenceId?: string | null; postings: Posting[] }>; unlessPosted?: boolean },
): void {
  const journals = j.journals.map((x) => {
    const postings = x.postings.filter((p) => p.amount !== 0n);
    invariant(unbalancedCurrencies(postings).length === 0, `journal ${x.key} does not balance`);
    return { key: x.key, kind: x.kind, referenceId: x.referenceId, id: newUuid(), postings };
  });
  // reference_id holds the referenced resource's key (a uuid, issue 30 30f), never its id.
  const journalRows = journals.map((x) => ({ id: x.id, platformId: j.platformId, idempotencyKey: x.key, kind: x.kind, referenceId: x.referenceId != null ? resourceKey(x.referenceId) : undefined, createdAt: j.at }));
  const entryRows = journals.flatMap((x) => x.postings.map((p) => ({ id: newUuid(), platformId: j.platformId, journalId: x.id, account: p.account, bucket: p.bucket, currency: p.currency, amount: p.amount, createdAt: j.at })));
  // unlessPosted (postJournal's rule): a key posted before writes nothing and is no error; the rest follows the journal's insert.
  const posted = j.unlessPosted ? `EXISTS (SELECT 1 FROM ${j.prefix}_j)` : undefined;
  if (posted) {
    invariant(journals.length === 1, 'unlessPosted takes one journal');
    s.insertUnlessPresent(`${j.prefix}_j`, 'ledger_journals', journalRows, ['platformId', 'idempotencyKey'].map(snakeCase));
    s.insertIf(`${j.prefix}_e`, 'ledger_entries', entryRows, posted);
  } else {
    s.insert(`${j.prefix}_j`, 'ledger_journals', journalRows);
    s.insert(`${j.prefix}_e`, 'ledger_entries', entryRows);
  }
  const deltas = internalDeltas(journals.flatMap((x) => x.postings));
  if (deltas.length === 0) return;
  const pid = s.param(j.platformId);
  const at = s.param(j.at);
  // Arrays (not a VALUES list): the statement's text is the same for any number of accounts — one
  // prepared statement, planned once, for every batch. svc_balance_moves (migrations 20261126020000/030000)
  // unnests them as rows the planner counts as one, so each account is found by its key; the other
  // conditions are checked on the row found (checkedAfterKeyLookup, src/platform/sql/planner.ts). The ids
  // are also a condition on internal_accounts itself: a generic plan made while the platform looked small
  // may scan the accounts first and the moves inside, and must then still read only the moved rows.
  const column = <T>(f: (d: (typeof deltas)[number]) => T) => s.param(deltas.map(f));
  const ids = column((d) => d.id);
  const after = [...j.after, ...(posted ? [`${j.prefix}_j`] : [])].map((cte) => ` AND EXISTS (SELECT 1 FROM ${cte})`).join('');
  // The statement's rows written so far are written before the balances lock (a shared account's row
  // is then held only for the balance update, its event and the commit).
  s.insertNow();
  s.with(
    `${j.prefix}_bal`,
    `UPDATE internal_accounts a
        SET available_balance = a.available_balance + d.available, held_balance = a.held_balance + d.held, updated_at = ${at}::timestamptz
       FROM svc_balance_moves(${ids}::text[], ${column((d) => d.currency)}::text[], ${column((d) => d.available.toString())}::bigint[], ${column((d) => d.held.toString())}::bigint[],
                   ${column(() => newUuid())}::text[], ${column((d) => JSON.stringify(currencyOf(d.currency)))}::jsonb[]) AS d
      WHERE a.platform_id = ${pid} AND a.id = ANY(${plannedForAnyValue(ids, 'text[]')}) AND a.id = d.id
        AND ${checkedAfterKeyLookup(`a.currency = d.currency AND a.available_balance + d.available >= 0 AND a.held_balance + d.held >= 0`)}${after}
      RETURNING a.*, d.event_id, d.currency_json`,
  ).require(`${j.prefix}_bal`, deltas.length, 'INSUFFICIENT_FUNDS', posted);
  s.with(`${j.prefix}_ev`, balanceEventsSql(`${j.prefix}_bal`, pid, ids, ' ORDER BY b.id'));
}

/**
 * The INTERNAL_ACCOUNT.BALANCE_UPDATED events of the balances `bal` (a CTE of the balance update) returned.
 * Issue 29 (29e): the rows come from `bal`, and the statement joins them to the same accounts of
 * `internal_accounts` by key (`x`, the row as it was before the statement: it exists, nothing of it is read).
 * On plain PostgreSQL that is one more primary-key lookup per account. On Citus it makes the INSERT … SELECT
 * a co-located one that is pushed down to the shard of `platform_id = <pid>` (the events' platform is the
 * accounts' one, `x.platform_id`): the update's rows are then sent only to the platform's worker. Read from
 * the CTE alone, the INSERT … SELECT ran via the coordinator, and Citus sends the results of the CTEs such a
 * statement reads to every worker (intermediate_result_pruning.c, SUBPLAN_ACCESS_ANYWHERE): every worker
 * joined the payment's transaction and the commit was two-phase across all of them.
 */
function balanceEventsSql(bal: string, pid: string, ids: string, orderBy = ''): string {
  return `INSERT INTO webhook_events (id, platform_id, type, data)
       SELECT b.event_id::uuid, x.platform_id, 'INTERNAL_ACCOUNT.BALANCE_UPDATED', ${balanceResourceSql('b')}
         FROM internal_accounts x JOIN ${bal} b ON b.id = x.id
        WHERE x.platform_id = ${pid} AND x.id = ANY(${plannedForAnyValue(ids, 'text[]')})${orderBy}`;
}

/**
 * internalAccountResource (internal-accounts.resource.ts) in SQL, over a row of internal_accounts
 * carrying `currency_json` (the wire currency object). test/payments/statement-budget.test.ts checks
 * the two agree.
 */
function balanceResourceSql(b: string): string {
  const iso = (col: string) => `to_char(${b}.${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  return `jsonb_build_object(
    'id', ${b}.id, 'customerId', ${b}.customer_id, 'type', ${b}.type, 'status', ${b}.status,
    'balance', jsonb_build_object('amount', ${b}.available_balance, 'currency', ${b}.currency_json),
    'totalBalance', jsonb_build_object('amount', ${b}.available_balance + ${b}.held_balance, 'currency', ${b}.currency_json),
    'fundingPaymentInstructions', ${b}.funding_payment_instructions, 'createdAt', ${iso('created_at')}, 'updatedAt', ${iso('updated_at')})`;
}

function internalDeltas(postings: Posting[]): Array<{ id: string; currency: string; available: bigint; held: bigint }> {
  const out = new Map<string, { id: string; currency: string; available: bigint; held: bigint }>();
  for (const p of postings) {
    if (p.bucket === 'SYSTEM') continue;
    const d = out.get(p.account) ?? { id: p.account, currency: p.currency, available: 0n, held: 0n };
    invariant(d.currency === p.currency, `account ${p.account} posted in two currencies`);
    if (p.bucket === 'AVAILABLE') d.available += p.amount;
    else d.held += p.amount;
    out.set(p.account, d);
  }
  return [...out.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
}

/**
 * journalsCtes for a write that has two outcomes in one statement (issue 27: a card authorization is
 * approved with its hold, or declined, by the same round trip): the balance moves only when `when`
 * (SQL over earlier CTEs) holds and no bucket goes negative — a balance that cannot cover it is not an
 * error but the other outcome. The journal, its entries and the INTERNAL_ACCOUNT.BALANCE_UPDATED
 * event are written only if it moved. At most one internal account (else a partial move could post).
 * Returns the SQL condition "the journal posted", for the caller's rows of either outcome.
 */
export function gatedJournalCtes(
  s: OneStatement,
  j: { platformId: string; key: string; kind: string; referenceId: string; postings: Posting[]; at: Date; prefix: string; when: string },
): string {
  const postings = j.postings.filter((p) => p.amount !== 0n);
  invariant(unbalancedCurrencies(postings).length === 0, `journal ${j.key} does not balance`);
  const deltas = internalDeltas(postings);
  invariant(deltas.length <= 1, `gated journal ${j.key} moves ${deltas.length} internal accounts`);
  let posted = j.when;
  if (deltas.length === 1) {
    const d = deltas[0]!;
    const pid = s.param(j.platformId);
    s.with(
      `${j.prefix}_bal`,
      `UPDATE internal_accounts a
          SET available_balance = a.available_balance + d.available, held_balance = a.held_balance + d.held, updated_at = ${s.param(j.at)}::timestamptz
         FROM svc_balance_moves(${s.param([d.id])}::text[], ${s.param([d.currency])}::text[], ${s.param([d.available.toString()])}::bigint[], ${s.param([d.held.toString()])}::bigint[],
                     ${s.param([newUuid()])}::text[], ${s.param([JSON.stringify(currencyOf(d.currency))])}::jsonb[]) AS d
        WHERE a.platform_id = ${pid} AND a.id = ${s.param(d.id)} AND a.id = d.id
          AND ${checkedAfterKeyLookup(`a.currency = d.currency AND a.available_balance + d.available >= 0 AND a.held_balance + d.held >= 0`)}
          AND ${j.when}
        RETURNING a.*, d.event_id, d.currency_json`,
    );
    s.with(`${j.prefix}_ev`, balanceEventsSql(`${j.prefix}_bal`, pid, s.param([d.id])));
    posted = `EXISTS (SELECT 1 FROM ${j.prefix}_bal)`;
  }
  if (postings.length === 0) return posted;
  const journalId = newUuid();
  s.insertIf(`${j.prefix}_j`, 'ledger_journals', [{ id: journalId, platformId: j.platformId, idempotencyKey: j.key, kind: j.kind, referenceId: resourceKey(j.referenceId), createdAt: j.at }], posted);
  s.insertIf(`${j.prefix}_e`, 'ledger_entries', postings.map((p) => ({ id: newUuid(), platformId: j.platformId, journalId, account: p.account, bucket: p.bucket, currency: p.currency, amount: p.amount, createdAt: j.at })), posted);
  return posted;
}
