// The Remote hosts section of Settings in words: how each host's tunnel stands. The states and ssh's
// reasons are the shell's (the host that keeps the tunnels writes them); this only names them.
import type { HarkThere, TunnelState } from '../types';

export type TunnelLine = { text: string; kind: 'ok' | 'waiting' | 'problem' | 'none' };

/** A tunnel's state as the section shows it; null: no running Hark keeps a tunnel to the host (yet). */
export function tunnelLine(tunnel: TunnelState | null): TunnelLine {
  if (tunnel === null) return { text: 'Not connected', kind: 'none' };
  switch (tunnel.state) {
    case 'connecting':
      return { text: 'Connecting…', kind: 'waiting' };
    case 'connected':
      return { text: 'Connected', kind: 'ok' };
    case 'reconnecting':
      return { text: `Reconnecting (${tunnel.reason})`, kind: 'waiting' };
    case 'refused':
      return { text: `Refused (${tunnel.reason})`, kind: 'problem' };
  }
}

/**
 * What the row says of the host's `hark` when it is not this one: missing, or another version, with
 * the terminal command that copies this one there. null: nothing to say (this one, or not looked at yet).
 */
export function harkLine(host: string, hark: HarkThere | null): string | null {
  if (hark === null || hark.hark === 'this') return null;
  const fix = `hark remote add ${host}`;
  if (hark.hark === 'missing') return `No hark on this host: run ${fix} in a terminal to copy this one there.`;
  return `This host has another hark (${hark.version}): run ${fix} in a terminal to copy this one there.`;
}
