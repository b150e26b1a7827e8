import closeWithGrace from 'close-with-grace';
import { ConfigError, loadConfig } from './config.js';
import { startTracing } from './platform/tracing.js';
import pino from 'pino';
import { loggerOptions } from './platform/logger.js';

async function main() {
  const config = loadConfig();
  // Tracing (when enabled) starts before the modules it instruments are loaded: hence the imports below.
  const tracing = await startTracing(config, 'svc-payments-api');
  const { closeDeps, createDeps } = await import('./bootstrap.js');
  const { buildApp } = await import('./app.js');
  const setup = await import('./start/sandbox-setup.js');
  const { runsWorkerInProcess, startInProcessWorker } = await import('./start/in-process-worker.js');
  // Sandbox on a fresh machine (issue 24): database and migrations, then the sandbox platform. Production: neither.
  const sandbox = setup.shouldSetUpSandbox(config);
  if (sandbox) await setup.prepareSandboxDatabase(config, pino(loggerOptions(config.LOG_LEVEL, 'api')));
  const deps = await createDeps(config, 'api');
  if (sandbox) await setup.ensureSandboxPlatform(config, deps.prisma, deps.logger, (text) => process.stdout.write(`${text}\n`));
  const app = await buildApp(deps);
  // Ready (and listening) only once the in-process worker is.
  const worker = runsWorkerInProcess(config, process.argv) ? await startInProcessWorker(config) : undefined;
  // A response sent while draining closes its connection: a keep-alive connection that was busy when the
  // signal came would otherwise hold the close open until its idle timeout (72 s in Fastify).
  let draining = false;
  app.addHook('onSend', async (_request, reply) => {
    if (draining) reply.header('connection', 'close');
  });
  await app.listen({ host: config.HOST, port: config.PORT });
  // SIGTERM/SIGINT: stop accepting, let in-flight requests finish, then close the pools.
  closeWithGrace({ delay: config.SHUTDOWN_TIMEOUT_MS }, async ({ signal, err }) => {
    if (err) deps.logger.error({ err }, 'shutting down after error');
    else deps.logger.info({ signal }, 'shutting down: finishing requests in flight');
    draining = true;
    await app.close();
    await worker?.close();
    await closeDeps(deps);
    await tracing?.shutdown().catch(() => undefined);
    deps.logger.info('server stopped');
  });
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
