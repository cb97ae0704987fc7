/**
 * A TCP proxy on 127.0.0.1 that can stall the network without resetting it:
 * `stall()` stops forwarding bytes (and closes) in both directions on every
 * connection, old and new, while keeping every socket open, as when packets
 * stop arriving; nothing is reset, so neither end notices. `resume()`
 * forwards what was held, in order, and carries on; `resume({ abandon: true })`
 * instead leaves the connections from before silent for good (a NAT or
 * firewall that forgot them: bytes dropped, still no reset) while new
 * connections pass.
 */
import net from 'node:net';

export interface TcpStallProxy {
  host: string;
  port: number;
  stall(): void;
  resume(opts?: { abandon?: boolean }): void;
  /** Connections accepted so far. */
  readonly accepted: number;
  close(): Promise<void>;
}

type Held = Buffer | 'end' | 'destroy';

export async function startTcpStallProxy(target: { host: string; port: number }): Promise<TcpStallProxy> {
  let stalled = false;
  let accepted = 0;
  const sockets = new Set<net.Socket>();
  /** Flushes for every direction of every connection, run on resume. */
  const flushers = new Set<() => void>();

  /** Forwarders of connections left silent by `resume({ abandon: true })`. */
  const abandoned = new Set<() => void>();

  /** Forward from → to, or hold while stalled (data, then its end or reset, in order). */
  const forward = (from: net.Socket, to: net.Socket) => {
    const held: Held[] = [];
    const deliver = (x: Held) => {
      if (to.destroyed) return;
      if (x === 'end') to.end();
      else if (x === 'destroy') {
        to.destroy();
        flushers.delete(flush);
      } else to.write(x);
    };
    const pass = (x: Held) => {
      if (abandoned.has(flush)) return;
      if (stalled || held.length) held.push(x);
      else deliver(x);
    };
    const flush = () => {
      while (held.length && !stalled) deliver(held.shift()!);
    };
    flushers.add(flush);
    let ended = false;
    from.on('data', (chunk: Buffer) => pass(chunk));
    from.on('end', () => {
      ended = true;
      pass('end');
    });
    // A reset or close on one side reaches the other only when the network lets it through.
    from.on('close', (hadError) => {
      if (hadError || !ended) pass('destroy');
    });
    from.on('error', () => {});
  };

  // Half-open: a side closes only when the other side's end is forwarded, never on its own.
  const server = net.createServer({ allowHalfOpen: true }, (down) => {
    accepted++;
    const up = net.connect({ port: target.port, host: target.host, allowHalfOpen: true });
    for (const s of [down, up]) {
      sockets.add(s);
      s.once('close', () => sockets.delete(s));
    }
    forward(down, up);
    forward(up, down);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    host: '127.0.0.1',
    port,
    get accepted() {
      return accepted;
    },
    stall() {
      stalled = true;
    },
    resume(opts = {}) {
      stalled = false;
      for (const f of [...flushers]) {
        if (opts.abandon) {
          abandoned.add(f);
          flushers.delete(f);
        } else f();
      }
    },
    async close() {
      stalled = false;
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
