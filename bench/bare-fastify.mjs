// The bare-Fastify ceiling of `npm run bench`: one route, no plugins, no logging, no database, in its own
// process. Prints `listening <port>` once it accepts connections.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
await app.listen({ host: '127.0.0.1', port: Number(process.argv[2] ?? 0) });
console.log(`listening ${app.server.address().port}`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
