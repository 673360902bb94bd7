import { CreateProduct } from '../../../src/application/product/CreateProduct.js';
import { DeleteProduct } from '../../../src/application/product/DeleteProduct.js';
import { GetProduct } from '../../../src/application/product/GetProduct.js';
import { ListProducts } from '../../../src/application/product/ListProducts.js';
import { SearchProducts } from '../../../src/application/product/SearchProducts.js';
import { UpdateProduct } from '../../../src/application/product/UpdateProduct.js';
import { describeResourceUseCases } from '../../support/resource/useCases.js';
import { productEntity, freshProductRepository } from '../../support/resources/product.js';

describeResourceUseCases({
  ...productEntity,
  classes: {
    Create: CreateProduct,
    Get: GetProduct,
    List: ListProducts,
    Search: SearchProducts,
    Update: UpdateProduct,
    Delete: DeleteProduct,
  },
  fresh: freshProductRepository,
  search: 'name',
});
