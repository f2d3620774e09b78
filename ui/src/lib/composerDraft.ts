/**
 * What is typed in the composer outlives the window: closing it destroys the page while Hark stays
 * in the tray, and the next window (built anew) finds the text where the person left it. Kept in the
 * page's storage, which belongs to the app, not to one window.
 */
const KEY = 'hark.composer-draft';

export function loadComposerDraft(storage: Storage | undefined = globalThis.localStorage): string {
  try {
    return storage?.getItem(KEY) ?? '';
  } catch {
    return '';
  }
}

export function saveComposerDraft(text: string, storage: Storage | undefined = globalThis.localStorage): void {
  try {
    if (text) storage?.setItem(KEY, text);
    else storage?.removeItem(KEY);
  } catch {
    // Full or unavailable storage: the text lives on in this window only.
  }
}
