import type { DomainModule } from '../../platform/module.js';
import { vaspRoutes } from './vasps.routes.js';

/** Issue 25: REF's VASP directory (GET /vasps), read from configuration (VASP_DIRECTORY). */
export const vaspsModule: DomainModule = {
  name: 'vasps',
  routes: (api) => vaspRoutes(api),
};
