/**
 * One read shared by the requests that ask for it together, and never one that
 * began before a request asked.
 *
 * Why: every free-feed request reads the content generation (and the newswire
 * the settlement watermark) so that a write by any instance or by the CLI is
 * seen at once. Under load those reads cost more than serving the cached
 * bytes. Requests handled in the same turn of the event loop can share one
 * read; a read that has already started cannot be shared, since it may predate
 * a write the later request must see (it would get older content than a
 * request that arrived after the write is entitled to).
 *
 * So the read is started on `setImmediate`, after the current turn's requests
 * have joined it; a request arriving once it has started waits for the next one.
 */
export class FreshRead<T> {
  private waiting: Promise<T> | undefined;

  constructor(private readonly read: () => Promise<T>) {}

  get(): Promise<T> {
    this.waiting ??= new Promise<T>((resolve, reject) => {
      setImmediate(() => {
        // From here on the read may be under way: later callers get their own.
        this.waiting = undefined;
        this.read().then(resolve, reject);
      });
    });
    return this.waiting;
  }
}
