import { Product } from '../../src/domain/product/Product.js';
import { describeResource } from '../support/resource/suites.js';

describeResource(Product);
