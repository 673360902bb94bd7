/**
 * Go-syntax durations (`500ms`, `1m30s`, `72h30m15s`, `850µs`), plus `d` for 24 hours (`14d`, for
 * retention settings): parsed into milliseconds and printed the way Go's `time.Duration.String()`
 * prints them. Pure: used by configuration
 * parsing and by the health report presentation alike.
 */

const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3, // U+00B5 micro sign
  μs: 1e-3, // U+03BC Greek mu
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

const TERM = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h|d)/y;

/** Parses a Go duration into milliseconds; `undefined` when the text is not a duration. */
export function parseDuration(text: string): number | undefined {
  let s = text.trim();
  if (s === '') return undefined;
  let sign = 1;
  if (s[0] === '-' || s[0] === '+') {
    if (s[0] === '-') sign = -1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') return undefined;
  TERM.lastIndex = 0;
  let total = 0;
  let pos = 0;
  while (pos < s.length) {
    TERM.lastIndex = pos;
    const m = TERM.exec(s);
    if (!m || m[1] === undefined || m[2] === undefined) return undefined;
    total += Number(m[1]) * (UNIT_MS[m[2]] ?? Number.NaN);
    pos = TERM.lastIndex;
  }
  if (!Number.isFinite(total)) return undefined;
  return sign * total;
}

/** Trims a decimal fraction's trailing zeros: `1.2300` → `1.23`, `2.000` → `2`. */
function trimFraction(value: number, decimals: number): string {
  const fixed = value.toFixed(decimals);
  return fixed.includes('.') ? fixed.replace(/\.?0+$/, '') : fixed;
}

/**
 * Prints milliseconds like Go's `time.Duration.String()`: `0s`, `850µs`, `1.234ms`, `1.5s`,
 * `1m30s`, `72h30m15s`. Precision is limited to the nanosecond.
 */
export function formatDuration(ms: number): string {
  let ns = Math.round(ms * 1e6);
  if (ns === 0) return '0s';
  const negative = ns < 0;
  if (negative) ns = -ns;
  let out: string;
  if (ns < 1_000) out = `${ns}ns`;
  else if (ns < 1_000_000) out = `${trimFraction(ns / 1_000, 3)}µs`;
  else if (ns < 1_000_000_000) out = `${trimFraction(ns / 1_000_000, 6)}ms`;
  else {
    const hours = Math.floor(ns / 3_600_000_000_000);
    const minutes = Math.floor((ns % 3_600_000_000_000) / 60_000_000_000);
    const seconds = (ns % 60_000_000_000) / 1_000_000_000;
    out = '';
    if (hours > 0) out += `${hours}h`;
    if (hours > 0 || minutes > 0) out += `${minutes}m`;
    out += `${trimFraction(seconds, 9)}s`;
  }
  return negative ? `-${out}` : out;
}
