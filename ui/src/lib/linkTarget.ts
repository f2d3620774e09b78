// What a link really opens. Model text can show `аpple.com` with a Cyrillic "а"; the browser will go to
// `xn--pple-43d.com`. The confirm dialog shows the address as the browser receives it (hosts in their
// ASCII form, the rest percent-encoded), and says so when a host is spelled with non-ASCII letters.

export interface LinkTarget {
  /** The URL exactly as it will be opened. */
  href: string;
  /** The host the browser connects to (ASCII / punycode); for mailto, the address. */
  host: string;
  /** The written host used non-ASCII letters, which can imitate another site's name. */
  lookalike: boolean;
}

/** Null when `url` does not parse (the dialog then offers nothing to open). */
export function linkTarget(url: string): LinkTarget | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol === 'mailto:') {
    return { href: parsed.href, host: decodeURIComponent(parsed.pathname), lookalike: false };
  }
  return { href: parsed.href, host: parsed.hostname, lookalike: parsed.hostname.split('.').some((l) => l.startsWith('xn--')) };
}
