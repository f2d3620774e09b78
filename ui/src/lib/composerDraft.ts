/**
 * What is typed in the composer outlives the window: closing it destroys the page while Hark stays
 * in the tray, and the next window (built anew) finds the text where the person left it. Kept in the
 * page's storage, which belongs to the app, not to one window; per data directory, since that
 * storage is shared by every data directory (profile) the app runs on.
 */
const key = (dataDir: string) => `hark.composer-draft:${dataDir}`;

export function loadComposerDraft(dataDir: string, storage: Storage | undefined = globalThis.localStorage): string {
  try {
    return storage?.getItem(key(dataDir)) ?? '';
  } catch {
    return '';
  }
}

export function saveComposerDraft(
  dataDir: string,
  text: string,
  storage: Storage | undefined = globalThis.localStorage,
): void {
  try {
    if (text) storage?.setItem(key(dataDir), text);
    else storage?.removeItem(key(dataDir));
  } catch {
    // Full or unavailable storage: the text lives on in this window only.
  }
}
