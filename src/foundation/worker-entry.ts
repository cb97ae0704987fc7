/**
 * Where a worker thread of ours starts, from source (tsx) or from the
 * production build (plain JavaScript next to the parent module).
 *
 * From source the worker must run TypeScript. On Node 20 a worker does not
 * get the parent's tsx loader hooks (nor does `--import tsx` in its execArgv
 * apply to its entry), so it starts from a small ES module that registers
 * tsx's ESM hooks in the worker and then imports the .ts entry, whatever
 * flags the parent had. The production build needs no loader and starts the
 * .js file itself.
 */
export function workerEntry(parentUrl: string, baseName: string): URL {
  const compiled = parentUrl.endsWith('.js');
  const entry = new URL(`./${baseName}${compiled ? '.js' : '.ts'}`, parentUrl).href;
  if (compiled) return new URL(entry);
  return new URL(
    'data:text/javascript,' +
      encodeURIComponent(`import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))};
register();
await import(${JSON.stringify(entry)});
`),
  );
}
