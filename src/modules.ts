import { a2aModule } from './a2a/module.js';
import { discoveryModule } from './discovery/module.js';
import { createIntelModule } from './intel/module.js';
import type { ServiceModule } from './module.js';
import { mcpModule } from './mcp/module.js';
import { operatorModule } from './operator/module.js';
import { routerModule } from './router/module.js';

/**
 * The modules `npm start` runs, in order: made for each service, as a module
 * with state of its own (the intelligence module's store and collectors)
 * serves one service.
 */
export function defaultModules(): ServiceModule[] {
  return [discoveryModule, mcpModule, a2aModule, routerModule, createIntelModule(), operatorModule];
}
