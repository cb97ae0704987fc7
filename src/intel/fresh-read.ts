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
 *
 * Given the database's commit version (`SqlDriver.commitVersion`), a turn
 * whose version equals the one taken just before the last completed read
 * gets that read's value: nothing was committed since it began, so a new
 * read would return the same. Worth it only where the read costs more than
 * asking for the version: the ledger's, a message to its thread
 * (docs/decisions/0037), not the content generation's one-row read on the
 * same connection.
 */
export class FreshRead<T> {
  private waiting: Promise<T> | undefined;
  private last: { version: string; value: T } | undefined;

  constructor(
    private readonly read: () => Promise<T>,
    private readonly commitVersion: () => string | undefined = () => undefined,
  ) {}

  get(): Promise<T> {
    this.waiting ??= new Promise<T>((resolve, reject) => {
      setImmediate(() => {
        // From here on the read may be under way: later callers get their own.
        this.waiting = undefined;
        // Taken before the read: a commit while it runs changes the version, so its value is not kept past it.
        const version = this.commitVersion();
        const last = this.last;
        if (version !== undefined && last?.version === version) return resolve(last.value);
        this.read().then((value) => {
          if (version !== undefined) this.last = { version, value };
          resolve(value);
        }, reject);
      });
    });
    return this.waiting;
  }
}
