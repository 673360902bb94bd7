/** Where a value stands in a JSON document: member names (text) and array indices (numbers), from the top. */
export type JsonPath = readonly (string | number)[];

/** The paths asked for, as a tree: a node is a place a path passes through or ends at. */
interface Wanted {
  /** The paths (by their index in the question) that end here. */
  readonly ends: number[];
  readonly members: Map<string, Wanted>;
  readonly items: Map<number, Wanted>;
}

/** What the scan found below a wanted place: a number's text, or the wanted members or items of a container. */
type Found = string | Map<string, Found> | Map<number, Found> | undefined;

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const [OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY, COMMA] = [0x7b, 0x7d, 0x5b, 0x5d, 0x2c];
const [COLON, MINUS, DIGIT_0, DIGIT_9] = [0x3a, 0x2d, 0x30, 0x39];

/**
 * The source text of the number at each of `paths` in `json`, a text `JSON.parse` accepts —
 * `undefined` where a path leads to no number — for reading a number by every digit written
 * rather than by the double `JSON.parse` rounds it to (`0.10000000000000001`, `1e400`). A path
 * leads where `JSON.parse` would: to the last of a member name written twice, escapes read.
 * One pass over the text whatever the number of paths: what no path asks for is skipped, never
 * built, and only the numbers asked for are cut out of the text.
 */
export function jsonNumberTexts(json: string, paths: readonly JsonPath[]): (string | undefined)[] {
  if (paths.length === 0) return [];
  const root: Wanted = wantedPlace();
  paths.forEach((path, index) => {
    let place = root;
    for (const step of path) {
      const children: Map<string | number, Wanted> = typeof step === 'string' ? place.members : place.items;
      let next = children.get(step);
      if (!next) children.set(step, (next = wantedPlace()));
      place = next;
    }
    place.ends.push(index);
  });
  const scan = new Scan(json);
  let found: Found;
  try {
    found = scan.value(root);
  } catch (error) {
    // Not the text JSON.parse took: nothing can be read back from it.
    if (error instanceof MalformedJson) return paths.map(() => undefined);
    throw error;
  }
  return paths.map((path) => {
    let at: Found = found;
    for (const step of path) at = at instanceof Map ? (at as Map<string | number, Found>).get(step) : undefined;
    return typeof at === 'string' ? at : undefined;
  });
}

const wantedPlace = (): Wanted => ({ ends: [], members: new Map(), items: new Map() });

class MalformedJson extends Error {}

/** A cursor over the JSON text. */
class Scan {
  private at = 0;

  constructor(private readonly json: string) {}

  /** The value at the cursor as `wanted` asks: a container's wanted members, a number's text; the rest skipped. */
  value(wanted: Wanted | undefined): Found {
    this.skipWhitespace();
    const code = this.json.charCodeAt(this.at);
    if (wanted && code === OPEN_OBJECT && wanted.members.size > 0) return this.object(wanted);
    if (wanted && code === OPEN_ARRAY && wanted.items.size > 0) return this.array(wanted);
    const start = this.at;
    this.skipValue();
    if (!wanted || wanted.ends.length === 0 || (code !== MINUS && (code < DIGIT_0 || code > DIGIT_9))) return undefined;
    return this.json.slice(start, this.at);
  }

  /** An object's wanted members; a name written again replaces what its earlier value gave, as in JSON.parse. */
  private object(wanted: Wanted): Map<string, Found> {
    const found = new Map<string, Found>();
    this.at += 1;
    this.skipWhitespace();
    if (this.json.charCodeAt(this.at) === CLOSE_OBJECT) {
      this.at += 1;
      return found;
    }
    for (;;) {
      this.skipWhitespace();
      const name = this.name();
      this.skipWhitespace();
      this.expect(COLON);
      const member = wanted.members.get(name);
      if (member) found.set(name, this.value(member));
      else this.value(undefined);
      if (this.endOf(CLOSE_OBJECT)) return found;
    }
  }

  /** An array's wanted items, by index. */
  private array(wanted: Wanted): Map<number, Found> {
    const found = new Map<number, Found>();
    this.at += 1;
    this.skipWhitespace();
    if (this.json.charCodeAt(this.at) === CLOSE_ARRAY) {
      this.at += 1;
      return found;
    }
    for (let index = 0; ; index += 1) {
      const item = wanted.items.get(index);
      if (item) found.set(index, this.value(item));
      else this.value(undefined);
      if (this.endOf(CLOSE_ARRAY)) return found;
    }
  }

  /** After a member or item: `true` past the container's closing bracket, `false` past a comma. */
  private endOf(close: number): boolean {
    this.skipWhitespace();
    const code = this.json.charCodeAt(this.at);
    this.at += 1;
    if (code === close) return true;
    if (code === COMMA) return false;
    throw new MalformedJson();
  }

  /** A member's name as JSON.parse reads it (escapes only when there are any). */
  private name(): string {
    const start = this.at;
    this.skipString();
    const text = this.json.slice(start + 1, this.at - 1);
    return text.includes('\\') ? (JSON.parse(this.json.slice(start, this.at)) as string) : text;
  }

  private skipWhitespace(): void {
    while (WHITESPACE.has(this.json.charCodeAt(this.at))) this.at += 1;
  }

  private expect(code: number): void {
    if (this.json.charCodeAt(this.at) !== code) throw new MalformedJson();
    this.at += 1;
  }

  private skipString(): void {
    this.expect(QUOTE);
    for (;;) {
      const code = this.json.charCodeAt(this.at);
      if (Number.isNaN(code)) throw new MalformedJson();
      this.at += code === BACKSLASH ? 2 : 1;
      if (code === QUOTE) return;
    }
  }

  /** Skips one value of any kind; a container's depth is counted, not recursed into. */
  private skipValue(): void {
    let depth = 0;
    do {
      this.skipWhitespace();
      const code = this.json.charCodeAt(this.at);
      if (code === QUOTE) this.skipString();
      else if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
        depth += 1;
        this.at += 1;
      } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
        if (depth === 0) throw new MalformedJson();
        depth -= 1;
        this.at += 1;
      } else if (code === COMMA || code === COLON) this.at += 1;
      else this.skipScalar();
    } while (depth > 0);
  }

  /** A number, `true`, `false` or `null`. */
  private skipScalar(): void {
    const start = this.at;
    while (isScalarCharacter(this.json.charCodeAt(this.at))) this.at += 1;
    if (this.at === start) throw new MalformedJson();
  }
}

/** What a number, `true`, `false` or `null` is written with: `-+.`, digits, lower-case letters and `E`. */
const isScalarCharacter = (code: number): boolean =>
  code === 0x2d ||
  code === 0x2b ||
  code === 0x2e ||
  code === 0x45 ||
  (code >= 0x30 && code <= 0x39) ||
  (code >= 0x61 && code <= 0x7a);
