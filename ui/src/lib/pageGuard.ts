// The shipped window is an app, not a browser tab: its page must not be reloaded from under the
// person (a reload drops drafts in flight and the panel's place). The webview's default context menu
// offers Reload and Back, and F5 / Ctrl+R reload; both are turned off, except the menu inside text
// fields, where it carries Cut / Copy / Paste.

function editable(target: EventTarget | null): boolean {
  if (!(target instanceof Element)) return false;
  return target.closest('input, textarea, [contenteditable]:not([contenteditable="false"])') !== null;
}

export function isReloadKey(e: KeyboardEvent): boolean {
  const key = e.key.toLowerCase();
  return key === 'f5' || ((e.ctrlKey || e.metaKey) && key === 'r');
}

/** Installs the guard on `win`; returns the function that removes it. */
export function guardPage(win: Window): () => void {
  const onContextMenu = (e: MouseEvent) => {
    if (!editable(e.target)) e.preventDefault();
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (isReloadKey(e)) e.preventDefault();
  };
  win.addEventListener('contextmenu', onContextMenu);
  win.addEventListener('keydown', onKeyDown, { capture: true });
  return () => {
    win.removeEventListener('contextmenu', onContextMenu);
    win.removeEventListener('keydown', onKeyDown, { capture: true });
  };
}
