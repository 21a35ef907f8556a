/**
 * ISO 8601 timestamps of fromDate and toDate: a calendar date (`2026-03-01`, UTC midnight) or a date
 * and time with optional seconds and fraction and an optional zone (`Z`, `+02:00`, `+0200`, `+02`).
 * A time without a zone is UTC. A space before the offset is read as `+`, because an unencoded `+`
 * in a query string decodes to a space. Impossible dates (`2026-02-30`) are refused: undefined.
 */
const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|z|[+\- ]\d{2}(?::?\d{2})?)?)?$/;

export function parseIsoDate(value: string): Date | undefined {
  const match = ISO_8601.exec(value);
  if (match === null) return undefined;
  const [, y, mo, d, h = '00', mi = '00', s = '00', fraction = '', zone = 'Z'] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const offsetMinutes = parseOffset(zone);
  if (offsetMinutes === undefined) return undefined;
  const millis = Number(fraction.padEnd(3, '0').slice(0, 3));
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  // Date.UTC maps years 0..99 to 1900..1999; set the full year explicitly.
  const date = new Date(utc);
  date.setUTCFullYear(year, month - 1, day);
  const time = date.getTime() - offsetMinutes * 60_000;
  return Number.isFinite(time) ? new Date(time) : undefined;
}

function parseOffset(zone: string): number | undefined {
  if (zone === 'Z' || zone === 'z') return 0;
  const sign = zone[0] === '-' ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0;
  if (hours > 23 || minutes > 59) return undefined;
  return sign * (hours * 60 + minutes);
}

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
}
