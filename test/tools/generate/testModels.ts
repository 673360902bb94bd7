import type { ResourceModel } from '../../../tools/generate/model.js';
import { parseCommand } from '../../../tools/generate/parse.js';
import { projectState } from '../../../tools/generate/project.js';

/** The model of `generate resource …` in a project holding `resources`, or the refusals as an error. */
export function modelOf(argv: string[], resources: readonly string[], migrationNumber: number): ResourceModel {
  const parsed = parseCommand(['resource', ...argv], projectState(resources, migrationNumber));
  if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
  return parsed.model;
}

/** Products, as the golden rule renders them: a project without the product resource, migration 2. */
export const PRODUCT_ARGS = ['product', 'name:string(1..200)', 'price:number(>0)', '--search', 'name'];
export const productModel = (): ResourceModel => modelOf(PRODUCT_ARGS, ['user'], 2);

/** The scratch test's two related resources (issue 10). */
export const CUSTOMER_ARGS = ['customer', 'name:string', 'email:email', 'tier:enum(free|pro)', '--search', 'name'];
export const INVOICE_ARGS = ['invoice', 'customer_id:ref(customer)', 'number:string', 'total:number', 'due_at:datetime', 'paid:boolean', 'notes:text?'];
export const customerModel = (): ResourceModel => modelOf(CUSTOMER_ARGS, ['product', 'user'], 3);
export const invoiceModel = (): ResourceModel => modelOf(INVOICE_ARGS, ['customer', 'product', 'user'], 4);
