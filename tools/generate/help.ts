import { MAX_NAME_LENGTH } from './parse.js';
import { ROUTE_WORDS } from './reserved.js';

/** What `npm run generate -- --help` prints. */
export const HELP = `usage: npm run generate -- resource <name> <field>... [--search <field>] [--owned] [--cached] [--dry-run]
       npm run generate -- field <resource> <field>... [--default <field>=<value>]... [--dry-run]
       npm run generate -- field <resource> --remove <field> [--dry-run]
       npm run generate -- migration [--default [<resource>.]<field>=<value>]... [--dry-run]
       npm run generate -- command <resource> <verb> --field <enum field> --from <state>[|<state>...]
                               --to <state> [--staff-only] [--dry-run]

Writes a new resource: list, create, get, update and delete over REST (/api/v1/<plural>) and
GraphQL. Its fields are declared once, in its entity file; the shared cores serve it from that
declaration — use cases, REST routes and bodies, GraphQL types and resolvers, the API document, the
SQL and in-memory repositories, its errors. What is particular to it is all it writes: the
declaration, the migration that creates its table, its line in the module list, its access rules and
one test file.

<name>    the resource, singular, lower snake case (invoice, purchase_order), at most ${MAX_NAME_LENGTH} characters.
          Plural by English rules (category -> categories, purchase_order -> purchase_orders); a
          name whose plural is the same word (sheep, news) is refused. REST path
          /api/v1/<plural in kebab case>, table <plural>, class PurchaseOrder, GraphQL purchaseOrder,
          purchaseOrders, createPurchaseOrder, updatePurchaseOrder, deletePurchaseOrder.

<field>   name:type, the name in lower snake case. JSON names are snake case in REST and camel case
          in GraphQL. Every resource already has id, created_at, updated_at and version.

  type               stored as           accepted on input
  string             varchar(200)        trimmed, 1 to 200 characters, no NUL
  text               text                trimmed, 0 to 10000 characters, no NUL
  integer            integer             a JSON integer in the signed 32-bit range (GraphQL Int)
  number             double              a finite JSON number (not for money: use decimal)
  decimal(p,s)       numeric(p,s)        an exact decimal of p digits, s after the point (p at most 15):
                     (SQLite: an integer  a string or JSON number with at most s fraction digits and p-s
                     of the smallest      before the point, never rounded; answered as a string with
                     unit)                exactly s fraction digits ("12.50"); GraphQL Decimal
  boolean            boolean             true or false
  datetime           timestamp with zone RFC 3339 with a zone; answered in UTC with Z
  date               date (SQLite: text) a calendar day YYYY-MM-DD, a real one (2026-02-30 is refused);
                                         answered as written, sorted by day; GraphQL Date
  email              varchar(254)        trimmed, lower-cased, an e-mail address
  uuid               varchar(36)         a UUID (lower-cased), stored as the ids are
  enum(a|b|c)        varchar             one of the values (lower snake case; GraphQL: A, B, C)
  ref(<resource>)    varchar(36), FK     the field name ends in _id; the row must exist; deleting a
                                         row still referred to answers 409; the list takes
                                         ?<field>=<id> as a filter
  file(<types>,<size>)?  text: the stored  never in a body (400 "is set by uploading the file"): the
                     file's key, size,    file is uploaded once its item exists. Types: lower-case
                     type, SHA-256 and    media types or ranges, separated by | (image/png|image/*);
                     upload time (JSON)   size: the largest, in KB, MB or GB (powers of 1,024). Always
                                         optional (?); answered as {url, size, content_type, sha256}
                                         or null (GraphQL File), url a signed link. Not sortable.
                                         photo:file(image/png|image/jpeg,5MB)?

  bounds    after string, text (lengths) and integer, number, decimal (values):
              string(1..80)   text(..2000)   integer(0..)   number(>0)   number(0..<1)   decimal(12,2)(>0)
            MIN..MAX, MIN.. and ..MAX are inclusive; >MIN and <MAX exclusive (numbers and decimals only;
            integer(>0) is integer(1..)). A string is at most 200 characters, a text 10000.
  optional  ? after the type and its bounds: notes:text?  score:integer(0..10)?
            An optional field is null when absent on create; null in an update clears it.
  sorting   every field but text and file can be sorted on (sort=<field>), besides created_at and updated_at.
  flags     after the type and its ?: +unique (no two rows hold equal values) and +readonly (set only
            by the server: a client may send it back as it is, else 400 "is read-only"; a required
            one needs a default). isbn:string(10..17)+unique  nickname:string?+unique
  default   =value last: a create that leaves the field out stores it (the field is optional in
            the create body, the API document shows it), and so do the rows stored before; read
            with the field's rule. stock:integer(0..)=0  status:enum(draft|sent|paid)+readonly=draft

--search <field>   a string field to search: GET /api/v1/<plural>/search?q=... and the GraphQL
                   search argument, case-insensitive.
--owned            each row belongs to the user who creates it: owner_id (GraphQL ownerId), set by
                   the server from the caller, never taken from a body. user gets GET|POST on the
                   collection and GET|PUT|DELETE on the item with scope own (policy.csv's fifth
                   field): lists, searches, nested lists and totals hold only the caller's rows,
                   another user's id is 404; moderator and admin (scope all) see every row. This
                   is how "my orders" are modelled (a ref(user) field is refused).
--cached           GET /api/v1/<plural>/{id} (and the GraphQL <name>(id)) answers through the shared
                   cache (memory, with redis.url memory + Redis): one database read per cold row
                   however many ask at once, kept cache.ttl; every update and delete (REST, GraphQL,
                   commands) forgets the row on every instance at once. Lists are not cached. An
                   owned row is answered to its owner only. Writes the declaration's cached: true.
--dry-run          list the files it would create and change; write nothing.
--help, -h         this help.

Refused, with exit code 2, one line per problem and nothing written: a name or field that is not
lower snake case; a name or plural taken by a resource or a route (${ROUTE_WORDS.join(', ')});
a JavaScript, TypeScript, GraphQL or SQL reserved word as a name
or field (in any form it takes: type, class, order, value...); an unknown type; malformed bounds; a
duplicate field; a field named id, created_at, updated_at or version; a ref field whose name does
not end in _id, or that refers to a resource that does not exist, to itself or to user (the
service's accounts are not a generated resource); --search on a field that is not a string; an
unknown +flag or one given twice; a default outside the field's bounds or type; a required
+readonly field without a default; a file field without ?, with +unique, +readonly or a default, or
whose types or size are missing or malformed.

It writes three files, for invoice:
  src/domain/invoice/Invoice.ts    INVOICE, the declaration, and class Invoice, where the resource's
                                   own behaviour goes (its errors: Invoice.errors)
  src/adapters/outbound/mikroorm/migrations/<YYYYMMDDTHHMM>_invoices.ts
                                   creates the table (and grants its rules to a database seeded before)
  test/resources/invoices.test.ts  describeResource(Invoice): the shared suites over the declaration
                                   (domain, use cases, repository on memory, SQLite and PostgreSQL,
                                   REST, GraphQL, access control)
and changes two: src/main/modules/index.ts (an import, and resourceModule(Invoice) appended to
MODULES, after the resources it refers to) and policy/policy.csv (moderator: every action, user: GET). Writing is all or nothing: if it fails
half-way, the tree is left as it was.

field <resource> adds fields to a resource (same name:type syntax) or removes one (--remove), on
products too and on resources edited by hand since they were generated. It edits the declaration
(src/domain/<name>/<Class>.ts; merged three ways, so hand edits there stay) and writes a migration
that changes the table of databases that already exist, rows kept (SQLite rebuilds the table where
ALTER cannot). A migration is named by its UTC creation time and what it does
(20261127T0512_invoices_add_status.ts) and listed nowhere: the service applies every migration file
it has not applied, in name order, so two branches that each add a field merge without a conflict
in any migration. The tests need no edit: their samples are derived from the declaration.
  --default f=v   the same as =v written in the field: its default for new rows and the value the
                  rows stored before get (read with the field's rule: --default status=draft,
                  --default total=0.00); a new required field without a default is refused. A new
                  optional field without one is null on them.
  --remove f      drops the field, its column and its sort index. Refused for id, created_at,
                  updated_at, version and the --search field.
  A ref field brings its relation with it: the nested list route, Class.parent and Parent.children
  in GraphQL (from the declaration) and the route's rules in policy.csv (and, through the migration,
  on databases seeded before); removing the last reference to a resource takes the rules away. A
  new required ref needs --default <id> of an existing row (the migration checks it).

migration compares each resource's declaration with the table its migrations make, and writes a
migration for each declaration edited by hand since (one per resource), with its rules as field
does; with nothing to do it says so and writes nothing. A required field added by hand
needs a default (.default(v) in the declaration, or --default <resource>.<field>=<value> for the
rows there alone; the resource may be left out when one changed); a changed .default(v) changes the
column's default, the rows kept; .unique() makes a unique index (refused, nothing changed, while
the table holds duplicates). A field whose type or
optionality changed is refused: remove it and add one under a new name.

command <resource> <verb> declares a state change of an enum field (normally +readonly, so commands
are the only way it changes): in the declaration, commands: { <verb>: { field, from, to } }, and in
the entity class the method <verb>(now), which refuses another state (409 CONFLICT naming it) and
moves the field; more behaviour goes in that method (docs/extending.md). Served as
POST /api/v1/<plural>/{id}/<verb> (If-Match optional; 200 with the row) and the GraphQL mutation
<verb><Class>(id: ID!): <Class>Response!; its rule (moderator; the owner too on an owned resource,
unless --staff-only) goes to policy.csv and, through a new migration, to databases that exist; the
resource's test file tests it. Refused, exit 2, nothing written: an unknown resource, a field that
is not an enum, a state it does not list, a verb that is not lower snake case, is reserved, or is
already a command, a field or a route word.
  npm run generate -- command invoice send --field status --from draft --to sent

Quote a field that has ( ) | < > ? or spaces in it: the shell reads those characters itself.

Example, two related resources (an invoice belongs to a customer):
  npm run generate -- resource customer name:string email:email 'tier:enum(free|pro)' --search name
  npm run generate -- resource invoice 'customer_id:ref(customer)' number:string 'total:decimal(12,2)(0..)' \\
      due_at:datetime paid:boolean 'notes:text?'
`;
