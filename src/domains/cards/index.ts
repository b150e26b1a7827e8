import type { DomainModule } from '../../platform/module.js';
import { cardRoutes } from './cards.routes.js';

export const cardsModule: DomainModule = {
  name: 'cards',
  routes: (api) => cardRoutes(api),
};
