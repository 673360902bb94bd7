import { Shop, ShopOrder } from '../support/ownedResources.js';
import { describeResourceOwnership } from '../support/resource/ownership.js';

describeResourceOwnership(ShopOrder, { shops: Shop });
