// The IPC types are generated from the shell's Rust types (`bindings.ts`, `make bindings`); nothing
// here declares a shape of its own, it only names parts of them the window handles on their own.
import type { AgentEvent } from './bindings';

export type * from './bindings';

/** One event's transcript deltas: sent for every recorded event, in seq order, right after it. */
export type TranscriptEvent = Extract<AgentEvent, { type: 'transcript' }>;
