import { describeResourceGraphQL } from '../../support/resource/graphql.js';
import { describeResourceRbac } from '../../support/resource/rbac.js';
import { describeResourceRest } from '../../support/resource/rest.js';
import { productResource } from '../../support/resources/product.js';

describeResourceRest(productResource);
describeResourceGraphQL(productResource);
describeResourceRbac(productResource);
