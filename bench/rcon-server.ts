/**
 * The vanilla-like RCON test server for the delivery benchmark, in a process of its own so that
 * answering does not share an event loop with the site or the load generator.
 * argv: password, then the names of the players in the game.
 * IPC: sends { port } when listening; answers 'stats' with what it has seen.
 */
import { VanillaRconServer } from '../testing/rcon/vanilla-server.ts';

const [password = 'bench', ...online] = process.argv.slice(2);
let first = 0;
let last = 0;
const server = new VanillaRconServer({
  password,
  online,
  maxPlayers: online.length,
  onCommand: () => {
    const now = performance.timeOrigin + performance.now();
    first ||= now;
    last = now;
    return undefined;
  },
});
const port = await server.start(0);
process.send?.({ port });
process.on('message', (m) => {
  if (m !== 'stats') return;
  process.send?.({
    commands: server.commands,
    first,
    last,
    violations: server.violations.length,
    connections: server.connections,
    logins: server.logins.length,
  });
});
process.on('disconnect', () => void server.stop().then(() => process.exit(0)));
