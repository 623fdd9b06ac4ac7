/** WebFetch's per-worker cache: a page's Markdown by URL for 15 minutes, so several questions about one page fetch it once. */

export interface CachedPage {
  /** The URL the page was finally read from (after same-host redirects). */
  url: string;
  status: number;
  contentType: string;
  bytes: number;
  markdown: string;
}

export class PageCache {
  private readonly entries = new Map<string, { page: CachedPage; storedAt: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly capacity: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(url: string): CachedPage | undefined {
    const entry = this.entries.get(url);
    if (!entry) return undefined;
    if (this.now() - entry.storedAt >= this.ttlMs) {
      this.entries.delete(url);
      return undefined;
    }
    return entry.page;
  }

  set(url: string, page: CachedPage): void {
    this.entries.delete(url);
    this.entries.set(url, { page, storedAt: this.now() });
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }
}
