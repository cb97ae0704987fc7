/**
 * The Solana chain reader over JSON-RPC, against a node that answers what the
 * test scripts (the embedded devnet is the real one: test/solana-rail.test.ts).
 * What matters is what the search may conclude: "not there" only from a
 * complete look at the window, never from a page it could not read.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rpcSvmReader } from './svm.js';
import { toBase58 } from '../../foundation/base58.js';

type Handler = (method: string, params: unknown[]) => { result?: unknown; error?: { code: number; message: string }; status?: number };

async function node(handler: Handler): Promise<{ url: string; calls: Array<{ method: string; params: unknown[] }>; close(): Promise<void> }> {
  const calls: Array<{ method: string; params: unknown[] }> = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const { id, method, params } = JSON.parse(body) as { id: number; method: string; params: unknown[] };
      calls.push({ method, params });
      const a = handler(method, params);
      res.writeHead(a.status ?? 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id, ...(a.error ? { error: a.error } : { result: a.result }) }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls, close: () => new Promise((r) => server.close(() => r())) };
}

/** A wire transaction whose signature slots hold these signatures (the message is irrelevant to the search). */
function wireWith(signatures: Uint8Array[]): string {
  const message = Buffer.from([signatures.length, 0, 0, 1, ...new Uint8Array(32).fill(3), ...new Uint8Array(32).fill(4), 0]);
  return Buffer.concat([Buffer.from([signatures.length]), ...signatures.map((s) => Buffer.from(s)), message]).toString('base64');
}
const sig = (n: number) => new Uint8Array(64).fill(n);

test('blockhash validity is read at the confirmed commitment', async () => {
  const n = await node((method) => (method === 'isBlockhashValid' ? { result: { context: { slot: 1 }, value: false } } : { error: { code: -32601, message: 'no' } }));
  try {
    assert.equal(await rpcSvmReader(n.url).blockhashValid('hash'), false);
    assert.deepEqual(n.calls[0]!.params, ['hash', { commitment: 'confirmed' }]);
  } finally {
    await n.close();
  }
});

test('the search pages back through the history until the window ends, and finds the buyer\'s signature among a transaction\'s', async () => {
  const mine = sig(7);
  // Page 1: 1,000 newer transactions; page 2: ours (failed on chain), then older ones.
  const page1 = Array.from({ length: 1000 }, (_, i) => ({ signature: `new${i}`, blockTime: 2000 }));
  const page2 = [{ signature: 'ours', blockTime: 1500 }, { signature: 'old', blockTime: 100 }];
  const n = await node((method, params) => {
    if (method === 'getSignaturesForAddress') return { result: (params[1] as { before?: string }).before === 'new999' ? page2 : page1 };
    if (method === 'getTransaction') {
      const s = params[0] as string;
      return { result: { transaction: [wireWith(s === 'ours' ? [sig(1), mine] : [sig(2), sig(3)]), 'base64'], meta: { err: s === 'ours' ? { InstructionError: [2, { Custom: 1 }] } : null } } };
    }
    return { error: { code: -32601, message: 'no' } };
  });
  try {
    const reader = rpcSvmReader(n.url);
    assert.deepEqual(await reader.findTransaction(toBase58(mine), 'acct', 1000), { signature: 'ours', failed: true });
    // Not there: the search stops at the first transaction older than the window, without reading it.
    n.calls.length = 0;
    assert.equal(await reader.findTransaction(toBase58(sig(9)), 'acct', 1000), undefined);
    assert.equal(n.calls.filter((c) => c.method === 'getTransaction' && c.params[0] === 'old').length, 0);
  } finally {
    await n.close();
  }
});

test('a search it cannot complete is an error, never "not there": a listed transaction unreadable, an HTTP or JSON-RPC error, more history than it reads', async () => {
  const cases: Array<[string, Handler, RegExp]> = [
    ['a listed transaction not readable yet', (m) => (m === 'getSignaturesForAddress' ? { result: [{ signature: 's1', blockTime: 5000 }] } : { result: null }), /not found/],
    ['HTTP 503', () => ({ status: 503, result: null }), /HTTP 503/],
    ['a JSON-RPC error', () => ({ error: { code: -32005, message: 'node is behind' } }), /node is behind/],
    [
      'endless history inside the window',
      (m, params) =>
        m === 'getSignaturesForAddress'
          ? { result: Array.from({ length: 1000 }, (_, i) => ({ signature: `${(params[1] as { before?: string }).before ?? 'p'}-${i}`, blockTime: null })) }
          : { result: { transaction: [wireWith([sig(2), sig(3)]), 'base64'], meta: { err: null } } },
      /inconclusive/,
    ],
  ];
  for (const [what, handler, why] of cases) {
    const n = await node(handler);
    try {
      await assert.rejects(rpcSvmReader(n.url, { searchPages: 2 }).findTransaction(toBase58(sig(7)), 'acct', 1000), why, what);
    } finally {
      await n.close();
    }
  }
});
