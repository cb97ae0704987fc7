import type { ServiceModule } from './module.js';

/** The modules `npm start` runs, in order. */
export const DEFAULT_MODULES: readonly ServiceModule[] = [];
