import { expect } from 'chai';
import type { FieldModel, ResourceModel } from '../../../tools/generate/model.js';
import { namesOf } from '../../../tools/generate/model.js';
import { parseCommand } from '../../../tools/generate/parse.js';
import { projectState } from '../../../tools/generate/project.js';

const PROJECT = projectState(['product', 'user'], '20261127T0512');
const WITH_CUSTOMER = projectState(['customer', 'product', 'user'], '20261127T0513');

function modelOf(args: string, project = PROJECT): { model: ResourceModel; dryRun: boolean } {
  const result = parseCommand(args.split(' '), project);
  if (!result.ok) expect.fail(`refused: ${result.problems.join('; ')}`);
  return result;
}

const fieldOf = (spec: string): FieldModel => modelOf(`resource invoice ${spec}`).model.fields[0]!;

function problemsOf(args: string[] | string, project = PROJECT): string[] {
  const result = parseCommand(typeof args === 'string' ? args.split(' ') : args, project);
  if (result.ok) expect.fail(`accepted: ${args}`);
  return result.problems;
}

const refusedWith = (args: string, problem: string, project = PROJECT) =>
  expect(problemsOf(args, project)).to.deep.equal([problem]);

describe('generate: parsing the command', () => {
  it('reads the products command into the model products are', () => {
    const { model, dryRun } = modelOf(
      'resource product name:string(1..200) price:number(>0) --search name',
      projectState(['user'], '0002'),
    );
    const name: FieldModel = {
      name: 'name',
      camel: 'name',
      type: 'string',
      optional: false,
      bounds: { min: 1, max: 200 },
      sortable: true,
    };
    expect(model).to.deep.equal({
      names: namesOf('product'),
      fields: [
        name,
        {
          name: 'price',
          camel: 'price',
          type: 'number',
          optional: false,
          bounds: { min: 0, minExclusive: true },
          sortable: true,
        },
      ],
      search: name,
      migrationStamp: '0002',
    });
    expect(dryRun).to.equal(false);
  });

  it('takes --dry-run and --search=<field> anywhere', () => {
    const { model, dryRun } = modelOf('resource --dry-run customer name:string --search=name');
    expect(dryRun).to.equal(true);
    expect(model.search?.name).to.equal('name');
  });

  it('reads the second example: a ref, camel-case names and an optional text', () => {
    const { model } = modelOf(
      'resource invoice customer_id:ref(customer) number:string total:number due_at:datetime paid:boolean notes:text?',
      WITH_CUSTOMER,
    );
    expect(model.names.pluralKebab).to.equal('invoices');
    expect(model.migrationStamp).to.equal('20261127T0513');
    expect(model.fields.map((f) => [f.name, f.camel, f.type, f.optional, f.sortable])).to.deep.equal([
      ['customer_id', 'customerId', 'ref', false, true],
      ['number', 'number', 'string', false, true],
      ['total', 'total', 'number', false, true],
      ['due_at', 'dueAt', 'datetime', false, true],
      ['paid', 'paid', 'boolean', false, true],
      ['notes', 'notes', 'text', true, false],
    ]);
    expect(model.fields[0]!.ref).to.deep.equal(namesOf('customer'));
  });

  describe('types and their default bounds', () => {
    for (const [spec, bounds] of [
      ['string', { min: 1, max: 200 }],
      ['text', { min: 0, max: 10000 }],
      ['integer', { min: -2147483648, max: 2147483647 }],
      ['number', {}],
      ['boolean', {}],
      ['datetime', {}],
      ['email', {}],
      ['uuid', {}],
    ] as const) {
      it(`${spec}: ${JSON.stringify(bounds)}, required, ${spec === 'text' ? 'not sortable' : 'sortable'}`, () => {
        const field = fieldOf(`f:${spec}`);
        expect(field).to.deep.equal({
          name: 'f',
          camel: 'f',
          type: spec,
          optional: false,
          bounds,
          sortable: spec !== 'text',
        });
      });
    }

    it('enum: the values in the order given, sortable', () => {
      expect(fieldOf('state:enum(draft|in_review|sent)')).to.deep.include({
        type: 'enum',
        values: ['draft', 'in_review', 'sent'],
        bounds: {},
        sortable: true,
      });
      expect(fieldOf('state:enum(only)').values).to.deep.equal(['only']);
    });
  });

  describe('bounds', () => {
    for (const [spec, bounds] of [
      ['string(1..80)', { min: 1, max: 80 }],
      ['string(5..)', { min: 5, max: 200 }],
      ['string(..80)', { min: 1, max: 80 }],
      ['string(0..200)', { min: 0, max: 200 }],
      ['text(..2000)', { min: 0, max: 2000 }],
      ['text(10..)', { min: 10, max: 10000 }],
      ['integer(0..100)', { min: 0, max: 100 }],
      ['integer(-5..5)', { min: -5, max: 5 }],
      ['integer(0..)', { min: 0, max: 2147483647 }],
      ['integer(>0)', { min: 1, max: 2147483647 }],
      ['integer(<10)', { min: -2147483648, max: 9 }],
      ['integer(>0..<10)', { min: 1, max: 9 }],
      ['number(>0)', { min: 0, minExclusive: true }],
      ['number(<0)', { max: 0, maxExclusive: true }],
      ['number(0..<1)', { min: 0, max: 1, maxExclusive: true }],
      ['number(>0..<1)', { min: 0, minExclusive: true, max: 1, maxExclusive: true }],
      ['number(-1.5..2.25)', { min: -1.5, max: 2.25 }],
      ['number(0..)', { min: 0 }],
      ['number(..100)', { max: 100 }],
      ['number(1..1)', { min: 1, max: 1 }],
    ] as const) {
      it(`${spec} → ${JSON.stringify(bounds)}`, () => {
        expect(fieldOf(`f:${spec}`).bounds).to.deep.equal(bounds);
      });
    }
  });

  describe('decimal(p,s)', () => {
    it('reads its digits, then its bounds, and is sortable', () => {
      expect(fieldOf('amount:decimal(12,2)(>0)?')).to.deep.equal({
        name: 'amount',
        camel: 'amount',
        type: 'decimal',
        optional: true,
        bounds: { min: 0, minExclusive: true },
        precision: 12,
        scale: 2,
        sortable: true,
      });
      expect(fieldOf('qty:decimal(15,0)')).to.deep.include({ precision: 15, scale: 0, bounds: {} });
      expect(fieldOf('rate:decimal(6,4)(-1.5..2.2500)').bounds).to.deep.equal({ min: -1.5, max: 2.25 });
    });

    const refusals: [string, string][] = [
      ['decimal', 'decimal needs its digits, e.g. decimal(12,2) for money (12 digits, 2 after the point)'],
      [
        'decimal(12)',
        'decimal(12): decimal needs its digits, e.g. decimal(12,2) for money (12 digits, 2 after the point), then bounds if any: decimal(12,2)(>0)',
      ],
      ['decimal(16,2)', 'decimal(16,2): the precision is 1 to 15 digits (both engines store it exactly)'],
      ['decimal(0,0)', 'decimal(0,0): the precision is 1 to 15 digits (both engines store it exactly)'],
      ['decimal(4,5)', 'decimal(4,5): the scale (digits after the point) is at most the precision'],
      ['decimal(12,2)(>0.001)', 'decimal(12,2)(>0.001): the bound 0.001 has more than 2 digits after the point'],
      ['decimal(4,2)(..100)', 'decimal(4,2)(..100): the bound 100 has more than 2 digits before the point'],
      [
        'decimal(12,2)(x)',
        `decimal(12,2)(x): bounds are MIN..MAX, MIN.., ..MAX, >MIN or <MAX (e.g. 1..80, ..2000, >0, 0..<1)`,
      ],
    ];
    for (const [spec, problem] of refusals) {
      it(`refuses ${spec}: ${problem}`, () =>
        refusedWith(`resource invoice amount:${spec}`, `field "amount": ${problem}`));
    }
  });

  describe('optional', () => {
    for (const spec of ['text?', 'integer(0..10)?', 'enum(a|b)?', 'datetime?', 'string(1..80)?']) {
      it(`${spec} is optional`, () => expect(fieldOf(`f:${spec}`).optional).to.equal(true));
    }
    it('a ref can be optional', () => {
      expect(modelOf('resource invoice customer_id:ref(customer)?', WITH_CUSTOMER).model.fields[0]!.optional).to.equal(
        true,
      );
    });
  });

  describe('date, flags and defaults: name:type(bounds)?+flag+flag=default', () => {
    it('date is a type of its own, optional with ?', () => {
      expect(fieldOf('published_on:date?')).to.deep.include({
        type: 'date',
        optional: true,
        bounds: {},
        sortable: true,
      });
    });

    it('reads the examples: flags after the type and its ?, then the default read with the field rule', () => {
      expect(fieldOf('isbn:string(10..17)+unique')).to.deep.include({ unique: true, bounds: { min: 10, max: 17 } });
      expect(fieldOf('isbn:string(10..17)+unique')).not.to.have.property('readonly');
      expect(fieldOf('status:enum(draft|sent|paid)+readonly=draft')).to.deep.include({
        readonly: true,
        defaultValue: 'draft',
        values: ['draft', 'sent', 'paid'],
      });
      expect(fieldOf('nickname:string?+unique')).to.deep.include({ optional: true, unique: true });
      expect(fieldOf('stock:integer(0..)=0')).to.deep.include({ defaultValue: 0, bounds: { min: 0, max: 2147483647 } });
      expect(fieldOf('code:string+readonly+unique=A-1')).to.deep.include({
        unique: true,
        readonly: true,
        defaultValue: 'A-1',
      });
    });

    it('reads each default in its domain form: numbers, booleans, decimals, dates, instants in UTC, trimmed text', () => {
      expect(fieldOf('ratio:number(0..1)=0.5').defaultValue).to.equal(0.5);
      expect(fieldOf('paid:boolean=false').defaultValue).to.equal(false);
      expect(fieldOf('total:decimal(12,2)(0..)=3.5').defaultValue).to.equal('3.50');
      expect(fieldOf('due_on:date=2026-01-31').defaultValue).to.equal('2026-01-31');
      expect(fieldOf('due_at:datetime=2026-01-31T12:00:00+02:00').defaultValue).to.equal('2026-01-31T10:00:00.000Z');
      expect(fieldOf('title:string=Hello=+(world)').defaultValue).to.equal('Hello=+(world)');
      const spaced = parseCommand(['resource', 'invoice', 'title:string= Hi there '], PROJECT);
      expect(spaced.ok && spaced.model.fields[0]!.defaultValue).to.equal('Hi there');
    });

    it('refuses, one line each: an unknown flag, a flag twice, a default outside the bounds or the type, a required read-only field with no default', () => {
      refusedWith(
        'resource invoice isbn:string+uniq',
        'field "isbn": unknown flag "+uniq" (the flags are +unique, +readonly, after the type and its ?: name:type?+unique)',
      );
      refusedWith(
        'resource invoice isbn:string+unique?',
        'field "isbn": unknown flag "+unique?" (the flags are +unique, +readonly, after the type and its ?: name:type?+unique)',
      );
      refusedWith('resource invoice isbn:string+unique+unique', 'field "isbn": +unique given twice');
      refusedWith(
        'resource invoice stock:integer(0..)=-1',
        'field "stock": the default "-1" must be an integer from 0 to 2147483647',
      );
      refusedWith(
        'resource invoice stock:integer=many',
        'field "stock": the default "many" must be an integer from -2147483648 to 2147483647',
      );
      refusedWith('resource invoice s:enum(a|b)=c', 'field "s": the default "c" must be one of a, b');
      refusedWith(
        'resource invoice d:date=2026-02-30',
        'field "d": the default "2026-02-30" must be a date (YYYY-MM-DD)',
      );
      refusedWith('resource invoice t:string(3..5)=ab', 'field "t": the default "ab" must be 3 to 5 characters');
      refusedWith(
        'resource invoice status:enum(draft|sent)+readonly',
        'field "status": a required +readonly field needs a default (status:enum(draft|sent)+readonly=<value>), or ? to start as null: no create could set it',
      );
      expect(fieldOf('status:enum(draft|sent)?+readonly')).to.deep.include({ optional: true, readonly: true });
    });
  });

  describe('refusals, each with its message', () => {
    const cases: [string, string, string][] = [
      // the name
      [
        'not lower snake case',
        'resource Invoice a:string',
        'name "Invoice": must be lower snake case, each word starting with a letter (e.g. purchase_order)',
      ],
      [
        'camel case',
        'resource purchaseOrder a:string',
        'name "purchaseOrder": must be lower snake case, each word starting with a letter (e.g. purchase_order)',
      ],
      [
        'a word starting with a digit',
        'resource item_2 a:string',
        'name "item_2": must be lower snake case, each word starting with a letter (e.g. purchase_order)',
      ],
      [
        'kebab case',
        'resource purchase-order a:string',
        'name "purchase-order": must be lower snake case, each word starting with a letter (e.g. purchase_order)',
      ],
      ['too long', `resource ${'a'.repeat(41)} b:string`, `name "${'a'.repeat(41)}": at most 40 characters`],
      ['an existing resource', 'resource product a:string', 'name "product": already taken by the product resource'],
      ['a route word', 'resource admin a:string', 'name "admin": already taken by the admin route'],
      [
        'a name whose plural is a route word',
        'resource doc a:string',
        'name "doc": its plural "docs" is already taken by the docs route',
      ],
      [
        'a name whose plural is the same word',
        'resource sheep a:string',
        'name "sheep": its plural is the same word, so one sheep and the list would share names; pick another',
      ],
      ['a plural', 'resource invoices a:string', 'name "invoices": is plural; give the singular (invoice)'],
      ['a JavaScript keyword', 'resource class a:string', 'name "class": "class" is a reserved word (JavaScript)'],
      [
        'a TypeScript keyword',
        'resource namespace a:string',
        'name "namespace": "namespace" is a reserved word (TypeScript)',
      ],
      ['a GraphQL keyword', 'resource fragment a:string', 'name "fragment": "fragment" is a reserved word (GraphQL)'],
      ['a SQL keyword', 'resource grant a:string', 'name "grant": "grant" is a reserved word (SQL)'],
      [
        'a plural that is a SQL keyword',
        'resource row a:string',
        'name "row": its plural "rows" is a reserved word (SQL)',
      ],
      [
        'a plural that strict mode forbids to bind',
        'resource argument a:string',
        'name "argument": its plural "arguments" is a reserved word (JavaScript)',
      ],
      [
        'a class name that shadows a built-in',
        'resource promise a:string',
        'name "promise": its class name "Promise" would shadow the JavaScript built-in',
      ],
      [
        'a GraphQL type another resource declares',
        'resource product_list a:string',
        'name "product_list": its GraphQL type "ProductList" is already declared by the product resource',
      ],
      [
        'a GraphQL type the shared schema declares',
        'resource sort_orientation a:string',
        'name "sort_orientation": its GraphQL type "SortOrientation" is already declared by the shared schema',
      ],
      // fields
      ['no fields', 'resource invoice', 'no fields: give at least one as name:type (e.g. title:string)'],
      ['no type', 'resource invoice title', 'field "title": expected name:type (e.g. title:string)'],
      ['no field name', 'resource invoice :string', 'field ":string": missing the name before the colon'],
      [
        'a field not in snake case',
        'resource invoice dueAt:datetime',
        'field "dueAt": must be lower snake case, each word starting with a letter (e.g. due_at)',
      ],
      [
        'an unknown type',
        'resource invoice total:float',
        'field "total": unknown type "float" (the types are string, text, integer, number, decimal, boolean, datetime, date, email, uuid, enum, ref, file)',
      ],
      [
        'a malformed type',
        'resource invoice total:number(1..2',
        'field "total": malformed type "number(1..2" (expected type, type(...) and ? for optional, e.g. string(1..80)?)',
      ],
      ['a duplicate field', 'resource invoice title:string title:text', 'field "title": declared twice'],
      [
        'id',
        'resource invoice id:uuid',
        'field "id": every resource has it already (id, created_at, updated_at and version are generated)',
      ],
      [
        'created_at',
        'resource invoice created_at:datetime',
        'field "created_at": every resource has it already (id, created_at, updated_at and version are generated)',
      ],
      [
        'updated_at',
        'resource invoice updated_at:datetime',
        'field "updated_at": every resource has it already (id, created_at, updated_at and version are generated)',
      ],
      [
        'version',
        'resource invoice version:integer',
        'field "version": every resource has it already (id, created_at, updated_at and version are generated)',
      ],
      [
        'a TypeScript keyword as a field',
        'resource invoice keyof:string',
        'field "keyof": "keyof" is a reserved word (TypeScript)',
      ],
      [
        'a TypeScript and SQL keyword as a field',
        'resource invoice declare:string',
        'field "declare": "declare" is a reserved word (TypeScript, SQL)',
      ],
      [
        'a keyword of two languages',
        'resource invoice type:string',
        'field "type": "type" is a reserved word (TypeScript, GraphQL)',
      ],
      [
        'a keyword of three languages',
        'resource invoice default:string',
        'field "default": "default" is a reserved word (JavaScript, SQL)',
      ],
      [
        'a field whose camel case is an Object member',
        'resource invoice to_string:string',
        'field "to_string": its camel-case form "toString" is a reserved word (JavaScript)',
      ],
      [
        'a field that makes the entity thenable',
        'resource invoice then:string',
        'field "then": "then" is a reserved word (JavaScript, SQL)',
      ],
      [
        'a field named after an entity member',
        'resource invoice to_props:string',
        'field "to_props": "toProps" is a member of the generated entity',
      ],
      ['a SQL keyword as a field', 'resource invoice order:integer', 'field "order": "order" is a reserved word (SQL)'],
      [
        'a field name too long',
        `resource invoice ${'b'.repeat(41)}:string`,
        `field "${'b'.repeat(41)}": at most 40 characters`,
      ],
      // bounds
      ['min above max', 'resource invoice n:integer(5..1)', 'field "n": integer(5..1): min 5 is greater than max 1'],
      [
        'min above max (lengths)',
        'resource invoice s:string(9..3)',
        'field "s": string(9..3): min 9 is greater than max 3',
      ],
      [
        'a min above the default max',
        'resource invoice s:string(201..)',
        'field "s": string(201..): min 201 is greater than max 200',
      ],
      [
        'not numbers',
        'resource invoice n:integer(a..b)',
        'field "n": integer(a..b): bounds are MIN..MAX, MIN.., ..MAX, >MIN or <MAX (e.g. 1..80, ..2000, >0, 0..<1)',
      ],
      [
        'empty bounds',
        'resource invoice n:number()',
        'field "n": number(): bounds are MIN..MAX, MIN.., ..MAX, >MIN or <MAX (e.g. 1..80, ..2000, >0, 0..<1)',
      ],
      [
        'only dots',
        'resource invoice n:number(..)',
        'field "n": number(..): bounds are MIN..MAX, MIN.., ..MAX, >MIN or <MAX (e.g. 1..80, ..2000, >0, 0..<1)',
      ],
      [
        '>= is not a form',
        'resource invoice n:number(>=0)',
        'field "n": number(>=0): bounds are MIN..MAX, MIN.., ..MAX, >MIN or <MAX (e.g. 1..80, ..2000, >0, 0..<1)',
      ],
      [
        'an empty exclusive range',
        'resource invoice n:number(>1..1)',
        'field "n": number(>1..1): no number is in the range',
      ],
      [
        'an empty integer range',
        'resource invoice n:integer(>1..<2)',
        'field "n": integer(>1..<2): no integer is in the range',
      ],
      [
        'a fractional integer bound',
        'resource invoice n:integer(0..1.5)',
        'field "n": integer(0..1.5): integer bounds are whole numbers',
      ],
      [
        'an integer bound beyond 32 bits',
        'resource invoice n:integer(0..3000000000)',
        'field "n": integer(0..3000000000): outside the signed 32-bit range',
      ],
      [
        'an exclusive length',
        'resource invoice s:string(>0)',
        'field "s": string(>0): lengths are inclusive, without > or < (e.g. string(1..80))',
      ],
      [
        'a fractional length',
        'resource invoice s:text(..1.5)',
        'field "s": text(..1.5): lengths are whole numbers of characters, 0 or more',
      ],
      [
        'a negative length',
        'resource invoice s:string(-1..5)',
        'field "s": string(-1..5): lengths are whole numbers of characters, 0 or more',
      ],
      [
        'a string longer than its column',
        'resource invoice s:string(1..500)',
        'field "s": string(1..500): a string is at most 200 characters (use text for longer)',
      ],
      [
        'a text longer than 10000',
        'resource invoice s:text(..20000)',
        'field "s": text(..20000): a text is at most 10000 characters',
      ],
      [
        'a zero longest length',
        'resource invoice s:text(..0)',
        'field "s": text(..0): the longest must be at least 1 character',
      ],
      ['bounds on boolean', 'resource invoice paid:boolean(1..2)', 'field "paid": boolean takes no bounds'],
      ['bounds on datetime', 'resource invoice due_at:datetime(0..)', 'field "due_at": datetime takes no bounds'],
      ['bounds on email', 'resource invoice mail:email(..80)', 'field "mail": email takes no bounds'],
      ['bounds on uuid', 'resource invoice code:uuid(1..2)', 'field "code": uuid takes no bounds'],
      // enum
      [
        'an enum without values',
        'resource invoice state:enum',
        'field "state": enum needs its values, e.g. enum(draft|sent|paid)',
      ],
      ['an empty enum', 'resource invoice state:enum()', 'field "state": enum(): needs at least one value'],
      [
        'an enum value not in snake case',
        'resource invoice state:enum(Draft|sent)',
        'field "state": enum value "Draft" must be lower snake case (it becomes DRAFT in GraphQL)',
      ],
      [
        'an empty enum value',
        'resource invoice state:enum(a||b)',
        'field "state": enum value "" must be lower snake case (it becomes "" in GraphQL)',
      ],
      [
        'an enum value GraphQL reserves',
        'resource invoice state:enum(true|open)',
        'field "state": enum value "true" is a reserved word (GraphQL)',
      ],
      ['an enum value twice', 'resource invoice state:enum(a|b|a)', 'field "state": enum value "a" is listed twice'],
      // ref
      [
        'a ref to a resource that does not exist',
        'resource invoice customer_id:ref(customer)',
        'field "customer_id": ref(customer): there is no customer resource (the resources are product, user)',
      ],
      [
        'a ref field not ending in _id',
        'resource invoice owner:ref(product)',
        'field "owner": a ref field\'s name ends in _id (e.g. owner_id)',
      ],
      [
        'a ref to itself',
        'resource invoice parent_id:ref(invoice)',
        'field "parent_id": ref(invoice): a resource cannot refer to itself (a row would have to exist before it is created)',
      ],
      [
        'a ref without a resource',
        'resource invoice owner_id:ref',
        'field "owner_id": ref needs the resource it refers to, e.g. ref(customer)',
      ],
      [
        'a ref to a name not in snake case',
        'resource invoice owner_id:ref(User)',
        'field "owner_id": ref(User): not a resource name (lower snake case)',
      ],
      // search and options
      [
        '--search on a text',
        'resource invoice notes:text --search notes',
        '--search notes: only a string field can be searched (notes is text)',
      ],
      [
        '--search on an email',
        'resource invoice mail:email --search mail',
        '--search mail: only a string field can be searched (mail is email)',
      ],
      [
        '--search on an undeclared field',
        'resource invoice title:string --search name',
        '--search name: there is no field name',
      ],
      [
        '--search twice',
        'resource invoice title:string --search title --search title',
        '--search given twice: one field can be searched',
      ],
      [
        '--search without a field',
        'resource invoice title:string --search',
        '--search needs a field name, e.g. --search title',
      ],
      [
        'an unknown option',
        'resource invoice title:string --force',
        'unknown option "--force" (the options are --search <field>, --owned, --cached, --dry-run, --help)',
      ],
      [
        'an unknown command',
        'model invoice title:string',
        'unknown command "model": use resource <name> <field>... (see --help)',
      ],
      ['no name', 'resource', 'missing the resource name: resource <name> <field>...'],
    ];
    for (const [label, args, problem] of cases) {
      it(`${label}: ${problem}`, () => refusedWith(args, problem));
    }

    it("a ref to user is refused: users are the service's accounts, not a generated resource", () => {
      refusedWith(
        'resource note owner_id:ref(user)',
        'field "owner_id": ref(user): users are the service\'s accounts, not a generated resource; only generated resources can be referenced',
      );
    });

    it('a name in several reserved forms says each', () => {
      expect(problemsOf('resource date a:string')).to.deep.equal([
        'name "date": "date" is a reserved word (SQL)',
        'name "date": its class name "Date" would shadow the JavaScript built-in',
      ]);
      expect(problemsOf('resource value a:string')).to.deep.equal([
        'name "value": "value" is a reserved word (SQL)',
        'name "value": its plural "values" is a reserved word (SQL)',
      ]);
    });

    it('a route word given as a plural says which route, and that it is plural', () => {
      expect(problemsOf('resource metrics a:string')).to.deep.equal([
        'name "metrics": already taken by the metrics route',
        'name "metrics": is plural; give the singular (metric)',
      ]);
    });

    it('an existing resource given in its plural says which resource, and that it is plural', () => {
      expect(problemsOf('resource users a:string')).to.deep.equal([
        'name "users": already taken by the user resource',
        'name "users": is plural; give the singular (user)',
      ]);
    });

    it('reports every problem at once, one line each, in the order given', () => {
      expect(
        problemsOf([
          'resource',
          'Invoice',
          'id:uuid',
          'type:string',
          'total:float',
          'customer:ref(customer)',
          'n:integer(5..1)',
          'n:string',
          'state:enum(true|A)',
          'notes:text',
          '--search',
          'notes',
          '--force',
        ]),
      ).to.deep.equal([
        'name "Invoice": must be lower snake case, each word starting with a letter (e.g. purchase_order)',
        'field "id": every resource has it already (id, created_at, updated_at and version are generated)',
        'field "type": "type" is a reserved word (TypeScript, GraphQL)',
        'field "total": unknown type "float" (the types are string, text, integer, number, decimal, boolean, datetime, date, email, uuid, enum, ref, file)',
        'field "customer": a ref field\'s name ends in _id (e.g. customer_id)',
        'field "customer": ref(customer): there is no customer resource (the resources are product, user)',
        'field "n": integer(5..1): min 5 is greater than max 1',
        'field "n": declared twice',
        'field "state": enum value "true" is a reserved word (GraphQL)',
        'field "state": enum value "A" must be lower snake case (it becomes A in GraphQL)',
        '--search notes: only a string field can be searched (notes is text)',
        'unknown option "--force" (the options are --search <field>, --owned, --cached, --dry-run, --help)',
      ]);
    });
  });

  describe('file(<types>,<size>)?', () => {
    it('reads its types (media types and ranges, in the order given) and its largest size in bytes; optional, not sortable', () => {
      expect(fieldOf('photo:file(image/png|image/jpeg,5MB)?')).to.deep.equal({
        name: 'photo',
        camel: 'photo',
        type: 'file',
        optional: true,
        bounds: {},
        types: ['image/png', 'image/jpeg'],
        maxBytes: 5 * 1024 * 1024,
        sortable: false,
      });
      expect(fieldOf('scan:file(application/pdf|image/*,512KB)?')).to.deep.include({
        types: ['application/pdf', 'image/*'],
        maxBytes: 512 * 1024,
      });
      expect(fieldOf('video:file(video/mp4,2GB)?').maxBytes).to.equal(2 * 1024 ** 3);
    });

    for (const [spec, problem] of [
      [
        'photo:file(image/png,5MB)',
        'field "photo": a file field must be optional (photo:file(...)?): a file is uploaded once its item exists',
      ],
      [
        'photo:file(image/png,5MB)?+unique',
        'field "photo": a file field cannot be +unique: only an upload sets it, once its item exists',
      ],
      [
        'photo:file(image/png,5MB)?+readonly',
        'field "photo": a file field cannot be marked +readonly (it is read-only already): only an upload sets it, once its item exists',
      ],
      [
        'photo:file(image/png,5MB)?=x',
        'field "photo": a file field cannot have a default (=value): only an upload sets it, once its item exists',
      ],
      ['photo:file?', 'field "photo": file needs its types and largest size, e.g. file(image/png|image/jpeg,5MB)'],
      [
        'photo:file(image/png)?',
        'field "photo": file(image/png): file needs its types and largest size, e.g. file(image/png|image/jpeg,5MB)',
      ],
      [
        'photo:file(,5MB)?',
        'field "photo": file(,5MB): a file field needs at least one type; list media types or ranges separated by | (image/png|image/*)',
      ],
      [
        'photo:file(image/PNG,5MB)?',
        'field "photo": file(image/PNG,5MB): "image/PNG" is not a media type (type/subtype, lower case); list media types or ranges separated by | (image/png|image/*)',
      ],
      [
        'photo:file(png,5MB)?',
        'field "photo": file(png,5MB): "png" is not a media type (type/subtype, lower case); list media types or ranges separated by | (image/png|image/*)',
      ],
      [
        'photo:file(image/png|image/png,5MB)?',
        'field "photo": file(image/png|image/png,5MB): the type image/png is listed twice',
      ],
      [
        'photo:file(image/png,5TB)?',
        'field "photo": file(image/png,5TB): the largest size "5TB" must be a whole number of KB, MB or GB (e.g. 5MB)',
      ],
      [
        'photo:file(image/png,0MB)?',
        'field "photo": file(image/png,0MB): the largest size "0MB" must be a whole number of KB, MB or GB (e.g. 5MB)',
      ],
      [
        'photo:file(image/png,1.5MB)?',
        'field "photo": file(image/png,1.5MB): the largest size "1.5MB" must be a whole number of KB, MB or GB (e.g. 5MB)',
      ],
    ] as const) {
      it(`refuses ${spec}: ${problem}`, () => refusedWith(`resource invoice ${spec}`, problem));
    }

    it('--search on a file field is refused: only a string field can be searched', () =>
      refusedWith(
        'resource invoice title:string photo:file(image/png,5MB)? --search photo',
        '--search photo: only a string field can be searched (photo is file)',
      ));
  });

  it('accepts everyday field names that are keywords nowhere it matters (number, name, status, symbol, email)', () => {
    const { model } = modelOf(
      'resource ticket number:string name:string status:enum(open|closed) symbol:string email:email',
    );
    expect(model.fields.map((f) => f.name)).to.deep.equal(['number', 'name', 'status', 'symbol', 'email']);
  });
});
