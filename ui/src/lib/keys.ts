/** The parts of a KeyboardEvent that decide whether Enter submits. */
export interface EnterLike {
  key: string;
  shiftKey: boolean;
  isComposing: boolean;
  /** 229 is what WebKit reports for keys that belong to an IME composition. */
  keyCode?: number;
}

/**
 * Enter submits; Shift+Enter inserts a newline. While an IME composition is active, Enter only confirms
 * the candidate: WebKit sometimes reports `isComposing = false` on that keydown but keeps keyCode 229.
 */
export function isSubmitEnter(e: EnterLike): boolean {
  if (e.key !== 'Enter' || e.shiftKey) return false;
  if (e.isComposing || e.keyCode === 229) return false;
  return true;
}
