import type { BoundaryError } from './bindings';

/** Every Hark error crosses IPC as `{ name, code, message }`; the window's own errors take that shape too. */
export type HarkError = BoundaryError;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/**
 * Turns whatever a failed `invoke` rejected with into a HarkError. Tauri rejects with the serialized
 * error for our commands, but with a plain string for its own failures (unknown command, denied by
 * the ACL), and a JS `Error` if the bridge itself is missing; all three must read well in a banner.
 */
export function toHarkError(reason: unknown): HarkError {
  if (isRecord(reason) && typeof reason.code === 'string' && typeof reason.message === 'string') {
    return {
      name: typeof reason.name === 'string' ? reason.name : 'Error',
      code: reason.code,
      message: reason.message,
    };
  }
  if (reason instanceof Error) {
    return { name: reason.name, code: 'UI_ERROR', message: reason.message };
  }
  if (typeof reason === 'string') {
    return { name: 'IpcError', code: 'IPC_ERROR', message: reason };
  }
  return { name: 'Error', code: 'UNKNOWN', message: 'Something went wrong, and it did not say what.' };
}
