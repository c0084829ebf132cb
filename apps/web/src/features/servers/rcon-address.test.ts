import { describe, expect, it } from 'vitest';
import { rconAddress, rconMoves } from './rcon-address.ts';

const saved = { ip_address: 'play.example.ru', rcon_host: null, rcon_port: 25575 };

describe('where RCON is reached, as the server decides whether its password stays', () => {
  it('is its own host, else the server’s; its port, else the standard one', () => {
    expect(rconAddress(saved)).toBe('play.example.ru:25575');
    expect(rconAddress({ ip_address: 'play.example.ru', rcon_host: '10.0.0.5', rcon_port: null })).toBe('10.0.0.5:25575');
    expect(rconAddress({ ip_address: '[::1]', rcon_host: '', rcon_port: Number.NaN })).toBe('::1:25575');
  });

  it('a new host or port moves it; the same address spelled otherwise does not', () => {
    expect(rconMoves(saved, { ...saved, rcon_port: 25580 })).toBe(true);
    expect(rconMoves(saved, { ...saved, rcon_host: 'evil.example' })).toBe(true);
    expect(rconMoves(saved, { ...saved, ip_address: 'other.example.ru' })).toBe(true);
    expect(rconMoves(saved, { ...saved, rcon_host: 'PLAY.example.ru.' })).toBe(false);
    expect(rconMoves(saved, { ...saved, rcon_port: null })).toBe(false);
    expect(rconMoves(saved, { ...saved, rcon_host: '  ' })).toBe(false);
  });
});
