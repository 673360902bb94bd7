import { describeResourceEntity } from '../../support/resource/useCases.js';
import { productEntity } from '../../support/resources/product.js';

describeResourceEntity(productEntity);
