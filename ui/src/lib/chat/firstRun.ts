// The first run's "Connect what you use" in words: each step's state from where it lives (the
// agents' files, the phone's pairing, the settings), and whether anything is left to offer. The
// shell says what is set up; this only names its answers.
import type { AgentsView, FirstRunRecord, FirstRunStep, FoundAgent, PhoneView, SettingsView } from '../types';
import { savedModelText } from './settingsForm';

export type StepKind = 'done' | 'todo' | 'not-found' | 'skipped' | 'unknown';

export interface StepState {
  step: FirstRunStep;
  kind: StepKind;
  /** The state for a person ("Set up", "Not found on this machine", "Paired with @ada"). */
  text: string;
}

/** What the first run reads; null where a read has not answered (or failed). */
export interface FirstRunFacts {
  record: FirstRunRecord;
  found: FoundAgent[];
  agents: AgentsView | null;
  phone: PhoneView | null;
  settings: SettingsView | null;
}

export const STEP_ORDER: FirstRunStep[] = ['claude_code', 'codex', 'phone', 'startup', 'model'];

const AGENT_OF: Partial<Record<FirstRunStep, 'claude-code' | 'codex'>> = { claude_code: 'claude-code', codex: 'codex' };

/** Where the agent was found, in words: its folder and its command, as many as there are. */
export function foundText(found: FoundAgent): string {
  const where = [found.folder, found.command].filter((w): w is string => w !== null);
  return where.length > 0 ? `Found: ${where.join(', ')}` : 'Not found on this machine';
}

function agentState(step: FirstRunStep, facts: FirstRunFacts): StepState {
  const name = AGENT_OF[step];
  const found = facts.found.find((f) => f.agent === name);
  const setUp = facts.agents?.agents.find((a) => a.agent === name)?.set_up;
  // Set up counts even when the agent is not found (its files were written by hand or elsewhere).
  if (setUp === true) return { step, kind: 'done', text: 'Set up' };
  if (!found || (!found.folder && !found.command)) return { step, kind: 'not-found', text: 'Not found on this machine' };
  if (facts.record.skipped.includes(step)) return { step, kind: 'skipped', text: 'Skipped' };
  if (setUp === undefined || setUp === null) return { step, kind: 'unknown', text: foundText(found) };
  return { step, kind: 'todo', text: `${foundText(found)} · not set up yet` };
}

/** One step's state. A skip counts only while the step is not done. */
export function stepState(step: FirstRunStep, facts: FirstRunFacts): StepState {
  if (AGENT_OF[step]) return agentState(step, facts);
  const skipped = facts.record.skipped.includes(step);
  const done = (text: string): StepState => ({ step, kind: 'done', text });
  const left = (text: string): StepState => (skipped ? { step, kind: 'skipped', text: 'Skipped' } : { step, kind: 'todo', text });
  switch (step) {
    case 'phone':
      if (!facts.phone) return skipped ? left('') : { step, kind: 'unknown', text: 'Reading the phone settings…' };
      return facts.phone.paired ? done(`Paired with ${facts.phone.paired.name}`) : left('Not paired');
    case 'startup':
      if (!facts.settings) return skipped ? left('') : { step, kind: 'unknown', text: 'Reading the settings…' };
      return facts.settings.settings.start_at_login ? done('On: Hark waits in the tray from login') : left('Off');
    case 'model':
      if (!facts.settings) return skipped ? left('') : { step, kind: 'unknown', text: 'Reading the settings…' };
      return facts.settings.settings.provider !== 'demo'
        ? done(`Uses ${savedModelText(facts.settings)}`)
        : left('The demo model: scripted replies, no AI');
    default:
      return { step, kind: 'unknown', text: '' };
  }
}

export const allSteps = (facts: FirstRunFacts): StepState[] => STEP_ORDER.map((s) => stepState(s, facts));

/** Nothing is left to offer: every step is done, skipped, or has nothing on this machine to connect. */
export const isFinished = (states: StepState[]): boolean => states.every((s) => s.kind !== 'todo' && s.kind !== 'unknown');

/** The first run is offered (on launch, and in the sidebar) until it is finished or dismissed. */
export const isOffered = (facts: FirstRunFacts): boolean => !facts.record.dismissed && !isFinished(allSteps(facts));

/** The record with `step` skipped, or no longer skipped. */
export function withSkip(record: FirstRunRecord, step: FirstRunStep, skip: boolean): FirstRunRecord {
  const others = record.skipped.filter((s) => s !== step);
  return { ...record, skipped: skip ? STEP_ORDER.filter((s) => s === step || others.includes(s)) : others };
}
