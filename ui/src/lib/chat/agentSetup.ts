// The Agents section of Settings in words: whether Hark is set up with an agent, each file's state,
// and the lines `hark setup` prints. What is set up is the shell's to say (it reads the files); this
// only names its answers.
import type { AgentFile, AgentFileOutcome, AgentView, SetupOutcome } from '../types';

/** The agent as a whole, from its files' states. */
export function agentState(agent: AgentView): { text: string; kind: 'set-up' | 'partly' | 'not' | 'unknown' } {
  if (agent.set_up === null) return { text: agent.error ? 'Could not be read' : 'Not known', kind: 'unknown' };
  if (agent.set_up) return { text: 'Set up', kind: 'set-up' };
  if (agent.files.every((f) => f.setup === 'added')) return { text: 'Not set up', kind: 'not' };
  return { text: 'Partly set up', kind: 'partly' };
}

/** One file's state before anything is run: what Set up would do to it, read the other way round. */
export function fileState(file: AgentFile): string {
  switch (file.setup) {
    case 'already_set_up':
      return 'set up';
    case 'added':
      return 'not set up';
    case 'updated':
      return 'set up differently: Set up updates it';
    default:
      return '';
  }
}

/** As `hark setup` names them. */
export function outcomeText(outcome: SetupOutcome): string {
  switch (outcome) {
    case 'added':
      return 'added';
    case 'updated':
      return 'updated';
    case 'already_set_up':
      return 'already set up';
    case 'removed':
      return 'removed';
    case 'nothing_to_remove':
      return 'nothing to remove';
  }
}

/** The line `hark setup` prints for a file: `<path>: <outcome> (<entries>)`. */
export const outcomeLine = (file: AgentFileOutcome): string => `${file.path}: ${outcomeText(file.outcome)} (${file.entries})`;
