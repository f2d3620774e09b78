// The panel's key handling as a pure function: a keydown (its relevant fields) plus what the panel
// shows gives one action. The component performs the action and calls preventDefault unless the
// action is `none`.

import { isSubmitEnter } from '../keys';
import { type Question, isMultiSelect, optionsOf } from './types';

export interface PanelKeyEvent {
  key: string;
  shiftKey: boolean;
  isComposing: boolean;
  keyCode?: number;
  ctrlKey?: boolean;
  metaKey?: boolean;
  altKey?: boolean;
  /** The key went to a text field (the "Other" input): digits, Space and arrows belong to the text. */
  inTextField?: boolean;
}

export interface PanelKeyState {
  /** The question shown; undefined for an empty request. */
  question: Question | undefined;
  /** The highlighted option, -1 for none. */
  highlight: number;
  /** Every item answered or skipped (draft.isComplete). */
  complete: boolean;
}

export type PanelAction =
  | { kind: 'none' }
  /** Single-select: pick (and advance). */
  | { kind: 'choose'; label: string }
  /** Multi-select: toggle. */
  | { kind: 'toggle'; label: string }
  | { kind: 'highlight'; index: number }
  | { kind: 'submit' }
  /** Enter while some item is still open: nothing is sent, the panel may point at what is missing. */
  | { kind: 'incomplete' }
  /** Close: cancel the whole call (ASK_CANCELLED for a blocking question). */
  | { kind: 'close' };

const NONE: PanelAction = { kind: 'none' };

function pick(q: Question, index: number): PanelAction {
  const option = optionsOf(q)[index];
  if (!option) return NONE;
  return isMultiSelect(q) ? { kind: 'toggle', label: option.label } : { kind: 'choose', label: option.label };
}

export function panelKeyAction(e: PanelKeyEvent, s: PanelKeyState): PanelAction {
  // Everything during an IME composition belongs to the composition (Escape cancels it, Enter confirms).
  if (e.isComposing || e.keyCode === 229) return NONE;
  if (e.key === 'Escape') return { kind: 'close' };
  if (e.key === 'Enter') {
    if (e.ctrlKey || e.metaKey || e.altKey || !isSubmitEnter(e)) return NONE;
    return s.complete ? { kind: 'submit' } : { kind: 'incomplete' };
  }
  if (e.ctrlKey || e.metaKey || e.altKey || e.inTextField) return NONE;
  const q = s.question;
  if (!q) return NONE;
  const count = optionsOf(q).length;
  if (count === 0) return NONE;

  if (/^[1-9]$/.test(e.key)) return e.shiftKey ? NONE : pick(q, Number(e.key) - 1);
  if (e.key === 'ArrowDown') {
    return { kind: 'highlight', index: s.highlight < 0 || s.highlight >= count - 1 ? 0 : s.highlight + 1 };
  }
  if (e.key === 'ArrowUp') {
    return { kind: 'highlight', index: s.highlight <= 0 || s.highlight >= count ? count - 1 : s.highlight - 1 };
  }
  if (e.key === ' ' && isMultiSelect(q)) return pick(q, s.highlight);
  return NONE;
}
