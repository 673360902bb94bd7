/**
 * Words a generated name must not be, because the code, SDL or SQL written from it would break or
 * mislead. Every list is matched exactly (JavaScript, TypeScript and GraphQL are case sensitive) and
 * the SQL lists in lower case (SQL is not).
 */

const words = (list: string): ReadonlySet<string> => new Set(list.trim().split(/\s+/));

/** ECMAScript reserved words, the strict-mode (module code) ones, and names strict mode forbids to bind. */
export const JAVASCRIPT = words(`
  await break case catch class const continue debugger default delete do else enum export extends false finally for
  function if import in instanceof new null return super switch this throw true try typeof var void while with yield
  implements interface let package private protected public static
  arguments eval undefined NaN Infinity
`);

/**
 * Members every JavaScript object has: a property of that name on an entity or a props object shadows
 * them (`valueOf`, `toString`, …), so the camel-case form of a field must not be one of them.
 */
export const OBJECT_MEMBERS = words(`
  constructor prototype hasOwnProperty isPrototypeOf propertyIsEnumerable toLocaleString toString valueOf
  toJSON then
`);

/**
 * TypeScript keywords that break or confuse declarations and modifiers. The primitive type names
 * (`number`, `string`, `boolean`, `object`, `symbol`, `any`, `unknown`, `never`, `bigint`) are left
 * out on purpose: they are valid names for properties and variables, and `invoice number:string` is a
 * field a team writes (a resource named after them is refused by its class name: see JAVASCRIPT_GLOBALS).
 */
export const TYPESCRIPT = words(`
  abstract accessor as asserts async constructor declare get infer intrinsic is keyof module namespace out override
  readonly require satisfies set type unique using global
`);

/** GraphQL keywords (the executable and the type-system language) and the values enum values cannot be. */
export const GRAPHQL = words(`
  query mutation subscription fragment on true false null
  schema scalar type interface union enum input extend directive implements repeatable
`);

/** SQL-92 reserved words (ISO/IEC 9075:1992, 5.2). */
export const SQL_92 = words(`
  absolute action add all allocate alter and any are as asc assertion at authorization avg begin between bit
  bit_length both by cascade cascaded case cast catalog char character char_length character_length check close
  coalesce collate collation column commit connect connection constraint constraints continue convert corresponding
  count create cross current current_date current_time current_timestamp current_user cursor date day deallocate dec
  decimal declare default deferrable deferred delete desc describe descriptor diagnostics disconnect distinct domain
  double drop else end escape except exception exec execute exists external extract false fetch first float for
  foreign found from full get global go goto grant group having hour identity immediate in indicator initially inner
  input insensitive insert int integer intersect interval into is isolation join key language last leading left level
  like local lower match max min minute module month names national natural nchar next no not null nullif numeric
  octet_length of on only open option or order outer output overlaps pad partial position precision prepare preserve
  primary prior privileges procedure public read real references relative restrict revoke right rollback rows schema
  scroll second section select session session_user set size smallint some space sql sqlcode sqlerror sqlstate
  substring sum system_user table temporary then time timestamp timezone_hour timezone_minute to trailing transaction
  translate translation trim true union unique unknown update upper usage user using value values varchar varying view
  when whenever where with work write year zone
`);

/** PostgreSQL's reserved key words, including those that "can be function or type" (documentation, Appendix C). */
export const POSTGRESQL = words(`
  all analyse analyze and any array as asc asymmetric both case cast check collate column constraint create
  current_catalog current_date current_role current_time current_timestamp current_user default deferrable desc
  distinct do else end except false fetch for foreign from grant group having in initially intersect into lateral
  leading limit localtime localtimestamp not null offset on only or order placing primary references returning select
  session_user some symmetric system_user table then to trailing true union unique user using variadic when where
  window with
  authorization binary collation concurrently cross current_schema freeze full ilike inner is isnull join left like
  natural notnull outer overlaps right similar tablesample verbose
`);

/** SQLite's key words that cannot stand unquoted as a table or column name (those without its ID fallback). */
export const SQLITE = words(`
  add all alter and as autoincrement between case check collate commit constraint create default deferrable delete
  distinct drop else escape except exists foreign from group having in index insert intersect into is isnull join
  limit not nothing notnull null on or order primary references returning select set table then to transaction union
  unique update using values when where
`);

/**
 * Built-ins the generated TypeScript uses or a reader expects: a resource whose class name is one of
 * these (`date` → `Date`, `error` → `Error`, `record` → `Record`) would shadow it in its own files.
 */
export const JAVASCRIPT_GLOBALS = words(`
  Array ArrayBuffer BigInt Boolean Buffer DataView Date Error EvalError Function Intl Iterator JSON Map Math Number
  Object Promise Proxy RangeError ReferenceError Reflect RegExp Set String Symbol SyntaxError TypeError URIError URL
  WeakMap WeakRef WeakSet
  Awaited Capitalize Exclude Extract InstanceType Lowercase NonNullable Omit Parameters Partial Pick Readonly Record
  Required ReturnType Uncapitalize Uppercase
`);

/** The GraphQL type names the shared schema and the language itself already declare. */
export const GRAPHQL_TYPES = words(`
  String Int Float Boolean ID Query Mutation Subscription DateTime Decimal SortOrientation TPaginationInputDto TSortingInputDto
  TPaginationObjectDto TCommonAPIErrorDto TCommonResponseDto
`);

/** The GraphQL root fields the shared schema already declares. */
export const GRAPHQL_ROOT_FIELDS = words('queryHealth mutationHealth');

/**
 * Members of the generated entity class besides the field getters (see the entity template):
 * a field whose camel-case name is one of them would collide with it.
 */
export const ENTITY_MEMBERS = words('props toProps requireVersion update');

/** Fields every resource has already: the generator writes them. */
export const BUILT_IN_FIELDS: readonly string[] = ['id', 'created_at', 'updated_at', 'version'];

/**
 * Route words of the service (README: Add a resource); their plurals are taken too. `product` is not among them:
 * it is a generated resource, taken while it exists like any other (so it can be generated again in a
 * copy without it, which is how the golden-output test proves the generator writes products).
 */
export const ROUTE_WORDS: readonly string[] = [
  'user',
  'auth',
  'admin',
  'profile',
  'health',
  'graphql',
  'metrics',
  'docs',
];

/**
 * The languages `word` is reserved in, in a fixed order; empty when it is free. `sql` says whether the
 * word also becomes a SQL identifier (the snake forms do; the camel-case ones never reach SQL).
 */
export function reservedIn(word: string, sql: boolean): string[] {
  const languages: string[] = [];
  if (JAVASCRIPT.has(word) || OBJECT_MEMBERS.has(word)) languages.push('JavaScript');
  if (TYPESCRIPT.has(word)) languages.push('TypeScript');
  if (GRAPHQL.has(word)) languages.push('GraphQL');
  const lower = word.toLowerCase();
  if (sql && (SQL_92.has(lower) || POSTGRESQL.has(lower) || SQLITE.has(lower))) languages.push('SQL');
  return languages;
}
