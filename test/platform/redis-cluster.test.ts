import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, Worker } from 'bullmq';
import { loadConfig } from '../../src/config.js';
import { bullConnection } from '../../src/bootstrap.js';
import { createQueues, queuePrefix, closeQueues } from '../../src/platform/queue.js';
import { createRedis } from '../../src/platform/redis.js';
import { eventually } from '../helpers/app.js';

/**
 * Redis Cluster: a one-node cluster of our own (never the shared Redis) holding all 16384 slots.
 * Redis refuses multi-key commands whose keys hash to different slots (CROSSSLOT) even on one node,
 * so this shows what a real cluster would: BullMQ works only with the hash-tagged prefix.
 */
const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

let proc: ChildProcess;
let port: number;
let dir: string;

beforeAll(async () => {
  port = await freePort();
  dir = mkdtempSync(path.join(tmpdir(), 'svc-redis-cluster-'));
  proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-announce-ip', '127.0.0.1', '--cluster-config-file', path.join(dir, 'nodes.conf'), '--dir', dir, '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  await eventually(async () => execFileSync('redis-cli', ['-p', String(port), 'ping']).toString().includes('PONG'));
  execFileSync('redis-cli', ['-p', String(port), 'cluster', 'addslotsrange', '0', '16383']);
  await eventually(async () => execFileSync('redis-cli', ['-p', String(port), 'cluster', 'info']).toString().includes('cluster_state:ok'));
});
afterAll(async () => {
  proc?.kill('SIGTERM');
  await new Promise((r) => (proc?.exitCode !== null ? r(null) : proc.once('exit', r)));
  rmSync(dir, { recursive: true, force: true });
});

describe('REDIS_MODE=cluster', () => {
  it('queues and workers run on a cluster with the hash-tagged prefix; the app client works too', async () => {
    const config = loadConfig({ DATABASE_URL: 'postgresql://x', REDIS_URL: 'redis://127.0.0.1:6379', REDIS_MODE: 'cluster', REDIS_CLUSTER_NODES: `127.0.0.1:${port}`, REDIS_PREFIX: 'svc' });
    expect(queuePrefix(config)).toBe('{svc}:bull');
    const queues = createQueues(['webhooks'], bullConnection(config), config.REDIS_PREFIX);
    const done: string[] = [];
    const worker = new Worker('webhooks', async (job) => void done.push(job.data.n), { connection: bullConnection(config), prefix: queuePrefix(config) });
    try {
      await queues.webhooks!.addBulk([1, 2, 3].map((n) => ({ name: 'deliver', data: { n: String(n) }, opts: { jobId: `j${n}`, delay: n === 3 ? 1 : 0 } })));
      await eventually(async () => done.length === 3);
      expect(done.sort()).toEqual(['1', '2', '3']);
      const redis = createRedis(config);
      await redis.set('svc:probe', '1');
      expect(await redis.get('svc:probe')).toBe('1');
      await redis.quit();
    } finally {
      await worker.close();
      await closeQueues(queues);
    }
  });

  it('without the hash tag BullMQ fails on a cluster (why the prefix carries one)', async () => {
    const config = loadConfig({ DATABASE_URL: 'postgresql://x', REDIS_URL: 'redis://127.0.0.1:6379', REDIS_MODE: 'cluster', REDIS_CLUSTER_NODES: `127.0.0.1:${port}` });
    const q = new Queue('plain', { connection: bullConnection(config), prefix: 'svc:bull' });
    try {
      await expect(q.add('x', {})).rejects.toThrow(/CROSSSLOT|same slot/i);
    } finally {
      await q.close();
    }
  });
});
