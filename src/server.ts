import closeWithGrace from 'close-with-grace';
import { ConfigError, loadConfig } from './config.js';
import { buildApp } from './app.js';
import { closeDeps, createDeps } from './bootstrap.js';

async function main() {
  const config = loadConfig();
  const deps = await createDeps(config, 'api');
  const app = await buildApp(deps);
  await app.listen({ host: config.HOST, port: config.PORT });
  // SIGTERM/SIGINT: stop accepting, let in-flight requests finish, then close the pools.
  closeWithGrace({ delay: config.SHUTDOWN_TIMEOUT_MS }, async ({ signal, err }) => {
    if (err) deps.logger.error({ err }, 'shutting down after error');
    else deps.logger.info({ signal }, 'shutting down');
    await app.close();
    await closeDeps(deps);
  });
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? err.message : err);
  process.exit(1);
});
