import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { eventually } from './app.js';
import { freePort } from './processes.js';

/**
 * A redis-server of the test's own (never the shared one): tests that lose Redis's data kill it and
 * start an empty one on the same port, as a restart without persistence does.
 */
export class OwnRedis {
  private child?: ChildProcess;
  port = 0;

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    if (!this.port) this.port = await freePort();
    this.child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const probe = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined);
    try {
      await eventually(async () => {
        if (probe.status !== 'ready') await probe.connect().catch(() => undefined);
        return (await probe.ping().catch(() => undefined)) === 'PONG';
      }, 20_000, 50);
    } finally {
      probe.disconnect();
    }
    return this;
  }

  /** SIGKILL: whatever it held is gone. */
  async kill(): Promise<void> {
    const c = this.child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGKILL');
    await exited;
  }

  /** Killed and started again empty on the same port: the data loss of a restart without persistence. */
  async restartEmpty(): Promise<void> {
    await this.kill();
    await this.start();
  }
}
