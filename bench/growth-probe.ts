/**
 * What a money-path run cost Postgres (growth bench, BENCH_GROWTH_PROBE=1; 30g): the answer to "why is it
 * slower at 2 M" in the same run, instead of a guess.
 *
 *  - per statement (pg_stat_statements, when the server preloads it): calls per payment, mean time, and per call
 *    the shared buffers hit, read from the OS, dirtied and written by the backend, and the WAL records, full-page
 *    images and bytes;
 *  - the server's WAL (pg_stat_wal) and buffer writes (pg_stat_bgwriter) over the run, per payment;
 *  - what the scratch database's backends were waiting on, sampled from pg_stat_activity every 50 ms.
 *
 * Each figure is logged per payment made in the run, so the small and the large size compare line by line.
 */
import pg from 'pg';

export interface Probe {
  /** Stops sampling; the run's figures as lines to log, divided by `n` of `unit` (the payments made, the idle seconds). */
  stop(n: number, unit?: string): Promise<string[]>;
}

const WAL_SQL = `SELECT wal_records::bigint AS records, wal_fpi::bigint AS fpi, wal_bytes::bigint AS bytes, wal_buffers_full::bigint AS full, wal_write::bigint AS writes, wal_sync::bigint AS syncs FROM pg_stat_wal`;
const BGW_SQL = `SELECT checkpoints_timed + checkpoints_req AS checkpoints, buffers_checkpoint AS ckpt, buffers_clean AS clean, buffers_backend AS backend, buffers_alloc AS alloc FROM pg_stat_bgwriter`;

async function statementsReady(db: pg.Pool): Promise<boolean> {
  const loaded = (await db.query(`SELECT setting FROM pg_settings WHERE name = 'shared_preload_libraries'`)).rows[0]?.setting as string | undefined;
  if (!loaded?.split(',').map((s) => s.trim()).includes('pg_stat_statements')) return false;
  await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  return true;
}

const delta = (a: Record<string, string>, b: Record<string, string>) => Object.fromEntries(Object.keys(b).map((k) => [k, Number(b[k]) - Number(a[k])]));

/**
 * Starts a probe on the scratch database `dbName` (its pool `db`): resets the statement counters and, with `waits`,
 * samples the backends' waits (not while idle CPU is measured: the sampling backend's CPU would be counted).
 */
export async function startProbe(db: pg.Pool, dbName: string, { waits: sample = true } = {}): Promise<Probe> {
  const statements = await statementsReady(db);
  if (statements) await db.query('SELECT pg_stat_statements_reset()');
  const wal0 = (await db.query(WAL_SQL)).rows[0];
  const bgw0 = (await db.query(BGW_SQL)).rows[0];
  const waits = new Map<string, number>();
  let samples = 0;
  let sampling = sample;
  const sampler = (async () => {
    if (!sampling) return;
    const c = await db.connect();
    try {
      while (sampling) {
        const r = await c.query(
          `SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU') AS w, count(*)::int AS n FROM pg_stat_activity
            WHERE datname = $1 AND pid <> pg_backend_pid() AND state = 'active' GROUP BY 1`,
          [dbName],
        );
        samples++;
        for (const row of r.rows) waits.set(row.w, (waits.get(row.w) ?? 0) + row.n);
        await new Promise((res) => setTimeout(res, 50));
      }
    } finally {
      c.release();
    }
  })();
  return {
    async stop(payments, unit = 'payment') {
      sampling = false;
      await sampler;
      const wal = delta(wal0, (await db.query(WAL_SQL)).rows[0]);
      const bgw = delta(bgw0, (await db.query(BGW_SQL)).rows[0]);
      const per = (n: number, d = 1) => (n / payments).toFixed(d);
      const lines: string[] = [
        `probe over ${payments} ${unit}s — WAL per ${unit}: ${per(wal.records!)} records, ${per(wal.fpi!, 2)} full-page images, ${per(wal.bytes!, 0)} bytes, ${per(wal.syncs!, 2)} syncs, ${wal.full} times the WAL buffers were full; ` +
          `buffers: ${bgw.checkpoints} checkpoints, per ${unit} ${per(bgw.backend!, 2)} written by backends, ${per(bgw.ckpt!, 2)} by the checkpointer, ${per(bgw.clean!, 2)} by the bgwriter, ${per(bgw.alloc!, 2)} allocated`,
      ];
      if (sample) lines.push(`  active backends by wait (mean over ${samples} samples): ${[...waits].sort((a, b) => b[1] - a[1]).map(([w, n]) => `${w} ${(n / Math.max(1, samples)).toFixed(2)}`).join(', ')}`);
      if (statements) {
        const r = await db.query(
          `SELECT s.query, s.calls::bigint AS calls, s.total_exec_time AS total, s.total_plan_time AS plan, s.shared_blks_hit AS hit, s.shared_blks_read AS read,
                  s.shared_blks_dirtied AS dirtied, s.shared_blks_written AS written, s.wal_records AS walrec, s.wal_fpi AS fpi, s.wal_bytes AS walbytes,
                  sum(s.total_exec_time) OVER () AS every_statement
             FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
            WHERE d.datname = $1 AND s.query NOT ILIKE '%pg_stat_%' ORDER BY s.total_exec_time DESC LIMIT 25`,
          [dbName],
        );
        const total = Number(r.rows[0]?.every_statement ?? 0);
        lines.push(`  statements (${per(total, 2)} ms of statement time per ${unit}; the 25 that took most):`);
        lines.push(`  | ms/${unit} | calls/${unit} | mean ms | hit | read | dirtied | written | WAL fpi | WAL bytes | statement |`);
        for (const x of r.rows) {
          const c = Number(x.calls) || 1;
          const each = (v: unknown, d = 1) => (Number(v) / c).toFixed(d);
          lines.push(
            `  | ${per(Number(x.total), 3)} | ${per(Number(x.calls), 2)} | ${(Number(x.total) / c).toFixed(3)} | ${each(x.hit)} | ${each(x.read)} | ${each(x.dirtied, 2)} | ${each(x.written, 2)} | ${each(x.fpi, 2)} | ${each(x.walbytes, 0)} | ${String(x.query).replace(/\s+/g, ' ').slice(0, 160)} |`,
          );
        }
      }
      return lines;
    },
  };
}
