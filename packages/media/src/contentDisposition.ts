import type { Disposition } from './storage/mediaStorage.js';

/** Longest file name kept, in code points; longer names are cut (header size, file-system limits). */
const MAX_FILE_NAME = 200;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A `Content-Disposition` value (RFC 6266): the bare disposition without a file name; with one, a quoted
 * ASCII `filename` fallback and, when the name is not plain printable ASCII, `filename*` in UTF-8
 * (RFC 8187). Never throws: control characters (CR/LF included) are dropped, path separators, quotes
 * and backslashes become `_` in the fallback, lone surrogates become U+FFFD.
 */
export function contentDisposition(disposition: Disposition, fileName: string | null): string {
  if (fileName === null) return disposition;
  const name = Array.from(
    fileName
      .replace(LONE_SURROGATE, '\uFFFD')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
      .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '')
      .replace(/[/\\]/g, '_')
      .trim(),
  )
    .slice(0, MAX_FILE_NAME)
    .join('');
  if (name === '') return disposition;
  const fallback = asciiFallback(name);
  const header = `${disposition}; filename="${fallback}"`;
  return fallback === name ? header : `${header}; filename*=UTF-8''${encodeRfc8187(name)}`;
}

function asciiFallback(name: string): string {
  const ascii = name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
  const replaced = ascii.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return replaced.trim() === '' ? 'download' : replaced;
}

/** Percent-encodes all but RFC 8187 attr-chars (encodeURIComponent leaves `'()*` as they are). */
function encodeRfc8187(value: string): string {
  return encodeURIComponent(value).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}
