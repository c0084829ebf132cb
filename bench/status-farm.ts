/**
 * A farm of local Minecraft status servers for the monitor benchmark, run as its own process
 * so that answering does not share the site's event loop. argv: count silentShare.
 * Sends its ports over IPC: { ports: number[], silent: number[] }.
 */
import { defaultStatus, StatusPeer } from '../testing/minecraft-status-peer.ts';

const count = Number(process.argv[2] ?? 1000);
const silentShare = Number(process.argv[3] ?? 0.05);
const silentEvery = Math.round(1 / silentShare);
const ports: number[] = [];
const silent: number[] = [];
for (let i = 0; i < count; i++) {
  const isSilent = i % silentEvery === silentEvery - 1;
  const peer = await new StatusPeer(
    isSilent ? { mode: 'silent' } : { mode: 'modern', status: defaultStatus(i % 50, 100, `Сервер ${i}`) },
  ).start();
  (isSilent ? silent : ports).push(peer.port);
}
process.send?.({ ports, silent });
