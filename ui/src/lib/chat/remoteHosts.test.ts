import { describe, expect, it } from 'vitest';
import { harkLine, tunnelLine } from './remoteHosts';

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

describe('harkLine', () => {
  it("says when the host's hark is missing or another version, and how to copy this one", () => {
    expect(harkLine('devbox', null)).toBeNull();
    expect(harkLine('devbox', { hark: 'this' })).toBeNull();
    expect(harkLine('devbox', { hark: 'missing' })).toBe(
      'No hark on this host: run hark remote add devbox in a terminal to copy this one there.',
    );
    expect(harkLine('devbox', { hark: 'other', version: 'hark 0.0.1' })).toBe(
      'This host has another hark (hark 0.0.1): run hark remote add devbox in a terminal to copy this one there.',
    );
  });
});
