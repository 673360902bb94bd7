import { parseCommand } from '../../../tools/generate/parse.js';
import { projectState } from '../../../tools/generate/project.js';
import type { ResourceModel } from '../../../tools/generate/model.js';

function parsed(argv: string[], resources: string[], migration: number): ResourceModel {
  const result = parseCommand(argv, projectState(resources, migration));
  if (!result.ok) throw new Error(result.problems.join('\n'));
  return result.model;
}

/** The worked example: the product model of ISSUE10.md, in a project without products. */
export const productModel = (): ResourceModel =>
  parsed(['resource', 'product', 'name:string(1..200)', 'price:number(>0)', '--search', 'name'], ['user'], 2);

/** Every field type, optional or not, with bounds, and a ref to `customer`. */
export const customerModel = (): ResourceModel =>
  parsed(['resource', 'customer', 'name:string', 'email:email', 'tier:enum(free|pro)', '--search', 'name'], ['product', 'user'], 3);
export const invoiceModel = (): ResourceModel =>
  parsed(
    [
      'resource',
      'invoice',
      'customer_id:ref(customer)',
      'number:string',
      'total:number',
      'due_at:datetime',
      'paid:boolean',
      'notes:text?',
      'tier:enum(free|pro)',
      'score:integer(0..10)?',
      'contact:email?',
      'ext:uuid?',
    ],
    ['customer', 'product', 'user'],
    4,
  );
