/** Makes identifiers. Promise: every call returns a new, unique, URL-safe id (a UUID in production). */
export interface IdGenerator {
  newId(): string;
}
