/**
 * npm run intel -- import FILE.ndjson [FILE2.ndjson …]
 * npm run intel -- collect [--source discovery|npm-releases|chain-census]
 *
 * `collect` runs the collectors once (src/intel/collectors: discovery
 * census, npm releases, on-chain census, configured by the INTEL_* variables)
 * and writes what they observe through the same validation and store as
 * `import`. Exit 0 when every source was read and every record accepted, 1
 * otherwise.
 *
 * Imports content records (newswire items, entities, relationships,
 * retractions, census snapshots, listings; one JSON object per line, see
 * src/intel/README.md) into the service's database — the same one `npm start`
 * uses, from DATA_DIR or DATABASE_URL. Every line is validated (schema,
 * dates, URLs, tiers, references); each rejected line is reported with its
 * reason and the others are applied. Importing the same file again changes
 * nothing (idempotent by eventId / id).
 *
 * Exit status: 0 when every line was accepted, 1 when any line was rejected,
 * 2 on a usage or configuration error.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../src/config.js';
import { formatRejections, importNdjson, type ImportReport } from '../src/intel/importer.js';
import { COLLECTOR_NAMES, fetchLimitsOf, planFromConfig, runCollectors, summarize, type CollectorName } from '../src/intel/collectors/runner.js';
import { SqlContentStore } from '../src/intel/store.js';
import { openDatabase } from '../src/store/index.js';
import { ownWallets } from '../src/payments/own-wallets.js';

const USAGE = `usage: npm run intel -- import FILE.ndjson [FILE.ndjson …]
       npm run intel -- collect [--source ${COLLECTOR_NAMES.join('|')}]`;

function die(msg: string, code = 2): never {
  process.stderr.write(msg + '\n');
  process.exit(code);
}

async function main(): Promise<void> {
  let args;
  try {
    args = parseArgs({ args: process.argv.slice(2), allowPositionals: true, strict: true, options: { help: { type: 'boolean', short: 'h' }, source: { type: 'string' } } });
  } catch (e) {
    die(`${(e as Error).message}\n${USAGE}`);
  }
  if (args.values.help) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  const [command, ...files] = args.positionals;
  if (command === 'collect') {
    const source = args.values.source;
    if (files.length > 0) die(USAGE);
    if (source !== undefined && !(COLLECTOR_NAMES as readonly string[]).includes(source)) die(`unknown --source "${source}"; one of ${COLLECTOR_NAMES.join(', ')}\n${USAGE}`);
    return collect(source as CollectorName | undefined);
  }
  if (args.values.source !== undefined) die(USAGE);
  if (command !== 'import' || files.length === 0) die(USAGE);
  const texts = files.map((f) => {
    try {
      return { file: f, text: readFileSync(f, 'utf8') };
    } catch (e) {
      return die(`cannot read ${f}: ${(e as Error).message}`);
    }
  });
  const { database } = await openServiceDatabase('import through the admin API while it runs');
  let rejected = 0;
  try {
    const store = new SqlContentStore(database.db, Date.now);
    for (const { file, text } of texts) {
      const report: ImportReport = await importNdjson(store, text, Date.now);
      for (const line of formatRejections(report, file)) process.stdout.write(line + '\n');
      process.stdout.write(
        `${file}: ${report.lines} records: ${report.created} created, ${report.updated} updated, ${report.unchanged} unchanged, ${report.rejected.length} rejected\n`,
      );
      rejected += report.rejected.length;
    }
  } finally {
    await database.close();
  }
  process.exitCode = rejected > 0 ? 1 : 0;
}

/**
 * The service's configuration and database, or one clear line and exit 2. A
 * SQLite data directory in use by the running service is refused: `whileRunning`
 * says what to do instead.
 */
async function openServiceDatabase(whileRunning: string) {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) die(`config error: ${e.message}`);
    throw e;
  }
  try {
    return { config, database: await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl }) };
  } catch (e) {
    if (e instanceof ConfigError) die(`config error: ${e.message}${config.databaseUrl ? '' : ` (stop the service, or ${whileRunning})`}`);
    throw e;
  }
}

/** Run the collectors once against the service's database. */
async function collect(only: CollectorName | undefined): Promise<void> {
  const { config, database } = await openServiceDatabase('let it collect on INTEL_COLLECT_INTERVAL');
  const rail = config.payment ? { network: config.payment.network, asset: config.payment.asset.address } : undefined;
  const plan = planFromConfig(config.intel, rail, ownWallets(config.operatorWallets, config.payment ? [config.payment.payTo] : []));
  let bad = 0;
  try {
    const store = new SqlContentStore(database.db, Date.now);
    const reports = await runCollectors({ store, now: Date.now, limits: fetchLimitsOf(config.intel) }, plan, only);
    for (const r of reports) {
      for (const f of r.failures) process.stdout.write(`${r.collector}: ${f.url || 'run'}: ${f.failure}: ${f.detail}\n`);
      for (const line of formatRejections(r.records, r.collector)) process.stdout.write(line + '\n');
      for (const n of r.notes) process.stdout.write(`${r.collector}: ${n}\n`);
      process.stdout.write(summarize(r) + '\n');
      bad += r.failures.length + r.records.rejected.length;
    }
  } finally {
    await database.close();
  }
  process.exitCode = bad > 0 ? 1 : 0;
}

main().catch((e) => die(`intel failed: ${e instanceof Error ? e.message : String(e)}`));
