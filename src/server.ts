import closeWithGrace from 'close-with-grace';
import { ConfigError, loadConfig } from './config.js';
import { startTracing } from './platform/tracing.js';

async function main() {
  const config = loadConfig();
  // Tracing (when enabled) starts before the modules it instruments are loaded: hence the imports below.
  const tracing = await startTracing(config, 'svc-payments-api');
  const { closeDeps, createDeps } = await import('./bootstrap.js');
  const { buildApp } = await import('./app.js');
  const deps = await createDeps(config, 'api');
  const app = await buildApp(deps);
  await app.listen({ host: config.HOST, port: config.PORT });
  // SIGTERM/SIGINT: stop accepting, let in-flight requests finish, then close the pools.
  closeWithGrace({ delay: config.SHUTDOWN_TIMEOUT_MS }, async ({ signal, err }) => {
    if (err) deps.logger.error({ err }, 'shutting down after error');
    else deps.logger.info({ signal }, 'shutting down: finishing requests in flight');
    await app.close();
    await closeDeps(deps);
    await tracing?.shutdown().catch(() => undefined);
    deps.logger.info('server stopped');
  });
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
