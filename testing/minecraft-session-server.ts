import { createRequire } from 'node:module';

/**
 * minecraft-protocol's online-mode server has no option for the session server: its login
 * (src/server/login.js) calls `yggdrasil.server({ agent })` for every connection, so hasJoined
 * always asks sessionserver.mojang.com. A real game server asks the site through
 * authlib-injector or GravitLauncher instead; this hook imitates that missing option for tests
 * by giving the very `yggdrasil` module instance minecraft-protocol loaded a factory that always
 * passes `host`. Nothing in node_modules is changed; restore() puts the original back.
 */
export function pointSessionChecksAt(sessionServer: string): { restore: () => void } {
  const fromProtocol = createRequire(createRequire(import.meta.url).resolve('minecraft-protocol'));
  const yggdrasil = fromProtocol('yggdrasil') as { server: (options: Record<string, unknown>) => unknown };
  const original = yggdrasil.server;
  yggdrasil.server = (options: Record<string, unknown> = {}) => original({ ...options, host: sessionServer });
  return {
    restore() {
      yggdrasil.server = original;
    },
  };
}
