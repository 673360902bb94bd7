/**
 * Exact decimals (the `decimal(p,s)` field type, money and quantities). A value is held as its
 * canonical text — an optional `-`, the integer digits without leading zeros, and exactly `scale`
 * fraction digits (`"12.50"`, `"-0.05"`, `"7"` at scale 0) — and computed with as a whole number of
 * the smallest unit (`1250n` cents), so that no step rounds through a binary double.
 */

/** The most digits a decimal may have: its smallest unit then stays an exact JavaScript number. */
export const DECIMAL_MAX_PRECISION = 15;

const ZERO = 0x30;

const DECIMAL_TEXT = /^(-?)(\d+)(?:\.(\d+))?$/;

/** A number as JSON and GraphQL write one, the exponent optional: `-12.5`, `1.25e1`, `5E-8`. */
const NUMBER_TEXT = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * A number given by its own text, as a client wrote it (a JSON number, a GraphQL number literal),
 * so that it is read from every digit written rather than from the double a parser rounds it to.
 */
export class NumberText {
  constructor(readonly text: string) {}
}

/** A decimal's parts as written: sign, integer digits (leading zeros dropped) and fraction digits. */
export interface DecimalParts {
  readonly negative: boolean;
  readonly integer: string;
  readonly fraction: string;
}

/** Reads `"-012.5"`-like text, plain digits only; `undefined` if it is not one. */
export function decimalParts(text: string): DecimalParts | undefined {
  const match = DECIMAL_TEXT.exec(text);
  if (!match) return undefined;
  const [, sign = '', digits = '', fraction = ''] = match;
  // Zeros are counted by a loop: `/0+$/` would start again at every zero of a run, quadratic in its length.
  let start = 0;
  while (start < digits.length - 1 && digits.charCodeAt(start) === ZERO) start += 1;
  let end = fraction.length;
  while (end > 0 && fraction.charCodeAt(end - 1) === ZERO) end -= 1;
  return { negative: sign === '-', integer: digits.slice(start), fraction: fraction.slice(0, end) };
}

/** The most digits a reading may place before the point (`integer`) and after it (`fraction`). */
export interface DigitLimits {
  readonly integer: number;
  readonly fraction: number;
}

/**
 * Reads a number as written, plain or with an exponent (`12.5`, `1.25e1`, `5E-8`), into its parts,
 * provided it has at most `limits.integer` digits before the point and `limits.fraction` after it
 * (leading zeros before and trailing zeros after aside); `undefined` otherwise. The exponent is
 * weighed before any digit is placed, so `1e300000000` costs the reading of its text, never the
 * building of its 300 million digits. Zero is zero whatever its exponent (`0e300000000`).
 */
export function numberParts(text: string, limits: DigitLimits): DecimalParts | undefined {
  const match = NUMBER_TEXT.exec(text);
  if (!match) return undefined;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  const digits = whole + fraction;
  // The first and last significant digits; none: the number is zero.
  let first = 0;
  while (first < digits.length && digits.charCodeAt(first) === ZERO) first += 1;
  if (first === digits.length) return { negative: sign === '-', integer: '0', fraction: '' };
  let last = digits.length - 1;
  while (digits.charCodeAt(last) === ZERO) last -= 1;
  // Where the point falls among the digits; an exponent too long for a double reads as ±Infinity.
  const point = whole.length + Number(exponent);
  if (point - first > limits.integer || last + 1 - point > limits.fraction) return undefined;
  // Within the limits: at most `limits.integer + limits.fraction` digits are placed.
  const digitAt = (i: number): string => (i >= first && i <= last ? digits.charAt(i) : '0');
  let integer = '';
  for (let i = first; i < point; i += 1) integer += digitAt(i);
  let fractionDigits = '';
  for (let i = point; i <= last; i += 1) fractionDigits += digitAt(i);
  return { negative: sign === '-', integer: integer === '' ? '0' : integer, fraction: fractionDigits };
}

/** A decimal in whole units of `10^-scale`; `undefined` for text that is not a decimal or has more fraction digits. */
export function unitsOf(text: string, scale: number): bigint | undefined {
  const parts = decimalParts(text);
  return parts === undefined ? undefined : unitsOfParts(parts, scale);
}

/** A decimal's parts in whole units of `10^-scale`; `undefined` when it has more fraction digits. */
export function unitsOfParts(parts: DecimalParts, scale: number): bigint | undefined {
  if (parts.fraction.length > scale) return undefined;
  const units = BigInt(parts.integer + parts.fraction.padEnd(scale, '0'));
  return parts.negative ? -units : units;
}

/** The canonical text of `units` of `10^-scale`: `formatUnits(1250n, 2)` is `"12.50"`. */
export function formatUnits(units: bigint | number, scale: number): string {
  const whole = typeof units === 'bigint' ? units : BigInt(units);
  const digits = (whole < 0n ? -whole : whole).toString().padStart(scale + 1, '0');
  const integer = digits.slice(0, digits.length - scale);
  const text = scale === 0 ? integer : `${integer}.${digits.slice(digits.length - scale)}`;
  return whole < 0n ? `-${text}` : text;
}

/** The sum of decimals of one scale, exactly: `addDecimals(['0.10', '0.20'], 2)` is `"0.30"`. */
export function addDecimals(values: readonly string[], scale: number): string {
  let total = 0n;
  for (const value of values) {
    const units = unitsOf(value, scale);
    if (units === undefined) throw new Error(`not a decimal of scale ${scale}: ${value}`);
    total += units;
  }
  return formatUnits(total, scale);
}
