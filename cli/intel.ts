/**
 * npm run intel -- import FILE.ndjson [FILE2.ndjson …]
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
import { SqlContentStore } from '../src/intel/store.js';
import { openDatabase } from '../src/store/index.js';

const USAGE = 'usage: npm run intel -- import FILE.ndjson [FILE.ndjson …]';

function die(msg: string, code = 2): never {
  process.stderr.write(msg + '\n');
  process.exit(code);
}

async function main(): Promise<void> {
  let args;
  try {
    args = parseArgs({ args: process.argv.slice(2), allowPositionals: true, strict: true, options: { help: { type: 'boolean', short: 'h' } } });
  } catch (e) {
    die(`${(e as Error).message}\n${USAGE}`);
  }
  if (args.values.help) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  const [command, ...files] = args.positionals;
  if (command !== 'import' || files.length === 0) die(USAGE);
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) die(`config error: ${e.message}`);
    throw e;
  }
  const texts = files.map((f) => {
    try {
      return { file: f, text: readFileSync(f, 'utf8') };
    } catch (e) {
      return die(`cannot read ${f}: ${(e as Error).message}`);
    }
  });
  let database;
  try {
    database = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  } catch (e) {
    if (e instanceof ConfigError) die(`config error: ${e.message}${config.databaseUrl ? '' : ' (stop the service, or import through the admin API while it runs)'}`);
    throw e;
  }
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

main().catch((e) => die(`import failed: ${e instanceof Error ? e.message : String(e)}`));
