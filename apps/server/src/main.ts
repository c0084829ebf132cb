import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { openDatabase } from './db/index.ts';
import { DatabaseDownAtStart, migrateWhenReachable } from './db/migrate.ts';
import { usePasswordSlots } from './front-door/passwords.ts';
import { lowerPoolThreads } from './lib/pool-threads.ts';

const config = loadConfig();
const database = openDatabase(config);
// A database that is down at start: one line, then wait for it (or exit, DATABASE_WAIT=off).
try {
  await migrateWhenReachable(database, { wait: config.databaseWait, say: (line) => console.error(line) });
} catch (err) {
  if (!(err instanceof DatabaseDownAtStart)) throw err;
  await database.close().catch(() => {});
  process.exit(1);
}
// As many password checks at once as this instance's share of the cores, set before any can run.
const passwordSlots = usePasswordSlots(config.passwordSlots);
const app = await buildApp(config, { database });
// Password hashes below the requests in the CPU's queue (lib/pool-threads.ts).
const lowered = await lowerPoolThreads(config.poolThreadsNice);
if (lowered !== null) app.log.debug(`libuv's pool threads at nice ${config.poolThreadsNice}: ${lowered}`);
app.log.debug(`password checks at once: ${passwordSlots}`);

let closing = false;
/**
 * SIGTERM/SIGINT: stop accepting connections, let in-flight requests finish and background jobs
 * wind down (releasing their claims) within SHUTDOWN_TIMEOUT_SEC, then close the database.
 */
async function shutdown(signal: string) {
  if (closing) return;
  closing = true;
  app.log.info(`${signal}: shutting down`);
  const cut = setTimeout(() => {
    app.log.warn(`requests still running after ${config.shutdownTimeoutMs / 1000} s: closing their connections`);
    app.server.closeAllConnections();
  }, config.shutdownTimeoutMs);
  cut.unref();
  const force = setTimeout(() => {
    app.log.error('shutdown did not finish in time');
    process.exit(1);
  }, config.shutdownTimeoutMs + 5000);
  force.unref();
  try {
    await app.close();
    await database.close();
    process.exit(0);
  } catch (err) {
    app.log.error({ err }, 'shutdown failed');
    process.exit(1);
  }
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

try {
  await app.listen({ port: config.port, host: config.host });
} catch (err) {
  // A port in use or not allowed: one line in the site's own log that says which, the background
  // jobs wound down (their claims given back, not left to expire) and the database closed; exit 1,
  // so the service manager restarts it.
  app.log.fatal({ err }, `cannot listen on ${config.host}:${config.port}: ${(err as Error).message}`);
  await app.close().catch(() => {});
  await database.close().catch(() => {});
  process.exit(1);
}
app.log.info(`${config.siteName}: ${config.publicUrl} (${database.kind === 'pg' ? 'PostgreSQL' : `SQLite ${config.sqlitePath}`})`);
