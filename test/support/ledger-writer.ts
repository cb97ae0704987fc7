/**
 * The service's ledger under steady paid traffic, as a process of its own
 * (`node --import tsx test/support/ledger-writer.ts DATA_DIR`): it opens the
 * ledger exactly as the service does (`openDatabase`: the pid file, the
 * ledger's own thread, WAL, its checkpoints) and records paid calls through
 * the real ledger methods, two at a time, as fast as the disk allows: reserve;
 * verified → executed (storing a RESULT_BYTES result) → settling in one
 * durable write; settled. It prints `settled N` as each call's last write is
 * acknowledged, `error …` and exits 1 on any failed write, and stops cleanly
 * (closing the ledger) when its standard input ends.
 */
import { randomBytes } from 'node:crypto';
import { openDatabase } from '../../src/store/index.js';
import { attempt } from './ledger-attempt.js';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: ledger-writer.ts DATA_DIR');
const resultBytes = Number(process.env.RESULT_BYTES ?? 65536);

const { ledger, close } = await openDatabase({ dataDir });
let stopping = false;
let settled = 0;
process.stdin.on('end', () => (stopping = true));
process.stdin.resume();

async function payOne(): Promise<void> {
  const owner = 'writer-' + process.pid;
  const a = attempt({ nonce: '0x' + randomBytes(32).toString('hex') });
  const now = Date.now();
  const r = await ledger.reserve({ attempt: a, lease: { owner, until: now + 60_000 }, now });
  if (!r.created) throw new Error(`reserve of ${a.id} created nothing`);
  const body = JSON.stringify({ ratio: 21, padding: randomBytes(resultBytes / 2).toString('hex') });
  const moved = await ledger.advance({
    id: a.id,
    owner,
    now,
    steps: [
      { to: 'verified', patch: {} },
      { to: 'executed', patch: { response: { status: 200, contentType: 'application/json', body } } },
      { to: 'settling', patch: { facilitator: 'http://127.0.0.1/facilitator' } },
    ],
  });
  if (!moved) throw new Error(`advance of ${a.id} lost its lease`);
  const tx = '0x' + randomBytes(32).toString('hex');
  if (!(await ledger.advance({ id: a.id, owner, now, durable: false, steps: [{ to: 'settled', patch: { txHash: tx, settleResponse: JSON.stringify({ success: true, transaction: tx }) } }] }))) {
    throw new Error(`settle of ${a.id} lost its lease`);
  }
  process.stdout.write(`settled ${++settled}\n`);
}

async function loop(): Promise<void> {
  while (!stopping) await payOne();
}

try {
  await Promise.all([loop(), loop()]);
  await close();
} catch (e) {
  process.stdout.write(`error ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
}
