import { describe, expect, it } from 'vitest';
import { tunnelLine } from './remoteHosts';

describe('tunnelLine', () => {
  it('names every state, with ssh reason where there is one', () => {
    expect(tunnelLine(null)).toEqual({ text: 'Not connected', kind: 'none' });
    expect(tunnelLine({ state: 'connecting' })).toEqual({ text: 'Connecting…', kind: 'waiting' });
    expect(tunnelLine({ state: 'connected' })).toEqual({ text: 'Connected', kind: 'ok' });
    expect(tunnelLine({ state: 'reconnecting', reason: 'Connection closed by 10.0.0.7 port 22' })).toEqual({
      text: 'Reconnecting (Connection closed by 10.0.0.7 port 22)',
      kind: 'waiting',
    });
    expect(tunnelLine({ state: 'refused', reason: 'ada@devbox: Permission denied (publickey).' })).toEqual({
      text: 'Refused (ada@devbox: Permission denied (publickey).)',
      kind: 'problem',
    });
  });
});
