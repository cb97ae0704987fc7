/**
 * Catalog rules every surface relies on. The table of entries itself is in
 * `capabilities/index.ts` (above the capabilities it lists).
 */
import type { Capability } from './capability.js';

export type { Capability, InputProblem, JsonSchema } from './capability.js';

/** Catalog invariants, checked at start-up so a bad entry never serves traffic. */
export function assertCatalog(catalog: readonly Capability[]): void {
  const ids = new Set<string>();
  const paths = new Set<string>();
  for (const c of catalog) {
    if (!/^[a-z][a-z0-9-]*$/.test(c.id)) throw new Error(`catalog: bad id "${c.id}"`);
    if (ids.has(c.id)) throw new Error(`catalog: duplicate id "${c.id}"`);
    if (paths.has(`${c.method} ${c.path}`)) throw new Error(`catalog: duplicate route ${c.method} ${c.path}`);
    if (!/^[1-9][0-9]{0,17}$/.test(c.priceAtomic)) throw new Error(`catalog: ${c.id} has a bad price "${c.priceAtomic}"`);
    ids.add(c.id);
    paths.add(`${c.method} ${c.path}`);
  }
}
