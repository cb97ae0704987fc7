import { a2aModule } from './a2a/module.js';
import { discoveryModule } from './discovery/module.js';
import { intelModule } from './intel/module.js';
import type { ServiceModule } from './module.js';
import { mcpModule } from './mcp/module.js';
import { routerModule } from './router/module.js';

/** The modules `npm start` runs, in order. */
export const DEFAULT_MODULES: readonly ServiceModule[] = [discoveryModule, mcpModule, a2aModule, routerModule, intelModule];
