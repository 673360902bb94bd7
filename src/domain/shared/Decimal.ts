/**
 * Exact decimals (the `decimal(p,s)` field type, money and quantities). A value is held as its
 * canonical text — an optional `-`, the integer digits without leading zeros, and exactly `scale`
 * fraction digits (`"12.50"`, `"-0.05"`, `"7"` at scale 0) — and computed with as a whole number of
 * the smallest unit (`1250n` cents), so that no step rounds through a binary double.
 */

/** The most digits a decimal may have: its smallest unit then stays an exact JavaScript number. */
export const DECIMAL_MAX_PRECISION = 15;

const DECIMAL_TEXT = /^(-?)(\d+)(?:\.(\d+))?$/;

const EXPONENT_FORM = /^(-?)(\d+)(?:\.(\d*))?[eE]([+-]?\d+)$/;

/**
 * Decimal text written with an exponent (`5e-8`, `1.25e1`, what `String(n)` gives for a small or
 * large JSON number) as plain digits (`0.00000005`, `12.5`), exactly; any other text as it is.
 */
export function withoutExponent(text: string): string {
  const match = EXPONENT_FORM.exec(text);
  if (!match) return text;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  const digits = whole + fraction;
  const point = whole.length + Number(exponent);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** A decimal's parts as written: sign, integer digits (leading zeros dropped) and fraction digits. */
export interface DecimalParts {
  readonly negative: boolean;
  readonly integer: string;
  readonly fraction: string;
}

/** Reads `"-012.5"`-like text (and what `String(n)` gives for a plain JSON number); `undefined` if it is not one. */
export function decimalParts(text: string): DecimalParts | undefined {
  const match = DECIMAL_TEXT.exec(text);
  if (!match) return undefined;
  const [, sign = '', digits = '', fraction = ''] = match;
  return { negative: sign === '-', integer: digits.replace(/^0+(?=\d)/, ''), fraction: fraction.replace(/0+$/, '') };
}

/** A decimal in whole units of `10^-scale`; `undefined` for text that is not a decimal or has more fraction digits. */
export function unitsOf(text: string, scale: number): bigint | undefined {
  const parts = decimalParts(text);
  if (!parts || parts.fraction.length > scale) return undefined;
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
