import { describe, expect, it } from 'vitest';
import { toHarkError } from './errors';

describe('toHarkError', () => {
  it('keeps a serialized Hark error as it is', () => {
    const e = { name: 'DataDirError', code: 'DATA_DIR_UNUSABLE', message: 'the data directory /x cannot be used' };
    expect(toHarkError(e)).toEqual(e);
  });
  it('names a plain string rejection (Tauri ACL, unknown command) as an IPC error', () => {
    expect(toHarkError('command app_info not allowed')).toEqual({
      name: 'IpcError',
      code: 'IPC_ERROR',
      message: 'command app_info not allowed',
    });
  });
  it('keeps the message of a thrown Error', () => {
    const e = toHarkError(new TypeError('window.__TAURI_INTERNALS__ is undefined'));
    expect(e.code).toBe('UI_ERROR');
    expect(e.name).toBe('TypeError');
    expect(e.message).toContain('__TAURI_INTERNALS__');
  });
  it('gives an unknown rejection a readable message', () => {
    expect(toHarkError(42).message.length).toBeGreaterThan(10);
  });
});
