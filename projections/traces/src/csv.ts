/**
 * RFC 4180 CSV: fields separated by commas, records ended by CRLF; a field holding a comma, a double
 * quote, CR or LF is enclosed in double quotes, with each double quote inside doubled. Other fields
 * are written as they are (null and undefined as the empty field).
 */
const NEEDS_QUOTES = /[",\r\n]/;

export function csvField(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvRecord(fields: readonly (string | number | boolean | null | undefined)[]): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}
