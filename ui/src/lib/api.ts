import { invoke } from '@tauri-apps/api/core';
import { toHarkError, type HarkError } from './errors';
import type { SessionSummary, Transcript } from './types';

export interface AppInfo {
  name: string;
  version: string;
  data_dir: string;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: HarkError };

/** Calls a shell command and never throws: failures come back as structured errors for the UI. */
export async function call<T>(command: string, args?: Record<string, unknown>): Promise<Result<T>> {
  try {
    return { ok: true, value: await invoke<T>(command, args) };
  } catch (reason) {
    return { ok: false, error: toHarkError(reason) };
  }
}

export const appInfo = (): Promise<Result<AppInfo>> => call<AppInfo>('app_info');

export const listSessions = (): Promise<Result<SessionSummary[]>> => call<SessionSummary[]>('list_sessions');

export const sessionTranscript = (sessionId: string): Promise<Result<Transcript>> =>
  call<Transcript>('session_transcript', { sessionId });
